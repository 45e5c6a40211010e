# Engine tests: schedules, assignment rules (no database), store schema,
# migrations and assignment counts, the store's lease, store + session state
# machine, simulated participants (with SIGKILL and restart) and export
# (refusals, sidecar, spreadsheet safety, bundle integrity).
if(NOT TARGET simlab_experiment)
  return()
endif()
simlab_add_test(test_experiment_schedule SOURCES test_experiment_schedule.c
                LIBS simlab_experiment)
simlab_add_test(test_experiment_assign SOURCES test_experiment_assign.c
                LIBS simlab_experiment)
simlab_add_test(test_experiment_within SOURCES test_experiment_within.c
                LIBS simlab_experiment PkgConfig::SQLITE3)
simlab_add_test(test_experiment_store SOURCES test_experiment_store.c
                LIBS simlab_experiment PkgConfig::SQLITE3)
simlab_add_test(test_experiment_session SOURCES test_experiment_session.c
                LIBS simlab_experiment PkgConfig::SQLITE3)
simlab_add_test(test_experiment_export SOURCES test_experiment_export.c
                LIBS simlab_experiment PkgConfig::SQLITE3)
# Answer deadlines, confidence and require_scroll (session, store, export,
# simulation, validation).
simlab_add_test(test_experiment_deadline SOURCES test_experiment_deadline.c
                LIBS simlab_experiment PkgConfig::SQLITE3)
# Per-item answer options (hive-distinction): keys per option, the order
# offered recorded and resumed, per-option evidence, export, 1,000 classes,
# simulated participants.
simlab_add_test(test_experiment_options SOURCES test_experiment_options.c
                LIBS simlab_experiment PkgConfig::SQLITE3)
# One writer per database (the lease), station of responses, read-only
# places; two `simlab simulate` on one file when the program is built.
if(TARGET simlab)
  simlab_add_test(test_experiment_lease SOURCES test_experiment_lease.c
                  LIBS simlab_experiment PkgConfig::SQLITE3
                  ARGS $<TARGET_FILE:simlab>)
else()
  simlab_add_test(test_experiment_lease SOURCES test_experiment_lease.c
                  LIBS simlab_experiment PkgConfig::SQLITE3)
endif()
if(TARGET simlab)
  simlab_add_test(test_experiment_simulate SOURCES test_experiment_simulate.c
                  LIBS simlab_experiment PkgConfig::SQLITE3
                  ARGS $<TARGET_FILE:simlab>)
  set_tests_properties(test_experiment_simulate PROPERTIES TIMEOUT 600)
endif()
if(TARGET simlab)
  add_test(NAME cli_test COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli_test.sh
           $<TARGET_FILE:simlab> ${SIMLAB_TEST_DATA}
           $<TARGET_FILE:simlab-analyze>)
endif()
# `simlab new`: the fifteen starter bundles load cleanly and run simulated.
simlab_add_test(test_stimuli_scaffold SOURCES test_stimuli_scaffold.c
                LIBS simlab_experiment simlab_stimuli PkgConfig::SQLITE3)
# Questionnaire blocks: parsing, answer checks, the session's screen, the
# answers' table, resume, X.questionnaire.csv and simulated answers.
simlab_add_test(test_questionnaire SOURCES test_questionnaire.c
                LIBS simlab_experiment PkgConfig::SQLITE3)
# Within-subject designs end to end: check, simulate, export, analyze
# examples/within.
if(TARGET simlab AND TARGET simlab-analyze)
  add_test(NAME within_test COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/within_test.sh
           $<TARGET_FILE:simlab> $<TARGET_FILE:simlab-analyze>
           ${CMAKE_SOURCE_DIR}/examples)
  # The study as the lab wrote it: examples/kredit-de end to end.
  add_test(NAME as_written_test
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/as_written_test.sh
           $<TARGET_FILE:simlab> $<TARGET_FILE:simlab-analyze>
           ${CMAKE_SOURCE_DIR}/examples)
  set_tests_properties(as_written_test PROPERTIES TIMEOUT 600)
endif()
# Explanations on request and on hover: the session's events, their store,
# simulated reveals and the export.
simlab_add_test(test_experiment_reveal SOURCES test_experiment_reveal.c
                LIBS simlab_experiment PkgConfig::SQLITE3 PkgConfig::JANSSON)
# Verify and decide blocks end to end: keys, screens, simulated accept_p,
# the export's model_correct, advice_shown and followed_advice, check.
simlab_add_test(test_experiment_verify SOURCES test_experiment_verify.c
                LIBS simlab_experiment PkgConfig::SQLITE3)
# A decide block with per-item options through the session: options
# offered in a recorded order, the answer stored as the class, advice per
# condition, a kill in the middle resumed, the export row by row.
simlab_add_test(test_experiment_decide SOURCES test_experiment_decide.c
                LIBS simlab_experiment PkgConfig::SQLITE3)
