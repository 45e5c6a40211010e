# `simlab power` (analysis/power.c, app/power_study.c, no SDL): size and
# power of the simulated tests, curtailed replicates, the written files and
# bad input; the study's own design (baseline, ...).
if(TARGET simlab_power)
  simlab_add_test(test_power SOURCES test_power.c LIBS simlab_power)
  simlab_add_test(test_power_design SOURCES test_power_design.c
                  LIBS simlab_power)
  # A study's primary test: sequential looks, Holm, the mixed model's
  # contrast against the reference, the one-way ANOVA.
  simlab_add_test(test_power_primary SOURCES test_power_primary.c
                  LIBS simlab_power PkgConfig::JANSSON)
  set_tests_properties(test_power_primary PROPERTIES TIMEOUT 600)
endif()

# The command line: a tiny end-to-end run and located usage errors.
if(TARGET simlab)
  set(_tf ${CMAKE_SOURCE_DIR}/assets/studies/text-forward)
  add_test(NAME power_cli_run
           COMMAND simlab power ${_tf} --participants 2,3 --studies 4
                   --replicates 40 --drop-singular --items per-condition
                   --screening 10
                   --out ${CMAKE_CURRENT_BINARY_DIR}/power-cli)
  set_tests_properties(power_cli_run PROPERTIES
    PASS_REGULAR_EXPRESSION "wrote .*power-cli/power")
  add_test(NAME power_cli_small_n
           COMMAND simlab power ${_tf} --participants 1,10 --out unused)
  set_tests_properties(power_cli_small_n PROPERTIES
    PASS_REGULAR_EXPRESSION "1 participants per condition \\(at least 2")
  add_test(NAME power_cli_unknown_condition
           COMMAND simlab power ${_tf} --participants 5 --p Foo:post=0.5
                   --out unused)
  set_tests_properties(power_cli_unknown_condition PROPERTIES
    PASS_REGULAR_EXPRESSION "unknown condition 'Foo'")
endif()

# The Utility test of the meta-predictor demo from the command line.
if(TARGET simlab)
  add_test(NAME power_cli_utility
           COMMAND simlab power ${CMAKE_SOURCE_DIR}/assets/studies/image-meta
                   --participants 3,6 --studies 4 --replicates 40 --quiet
                   --screening 5
                   --out ${CMAKE_CURRENT_BINARY_DIR}/power-cli-utility)
  set_tests_properties(power_cli_utility PROPERTIES
    PASS_REGULAR_EXPRESSION "wrote .*power-cli-utility/power")
endif()

# simlab simulate's summary states the timeout rate of answers with a
# deadline (examples/kredit-de: 15 s deadlines).
if(TARGET simlab)
  set(_kdb ${CMAKE_CURRENT_BINARY_DIR}/simulate-timeouts.db)
  add_test(NAME simulate_cli_timeouts
           COMMAND sh -c "rm -f '${_kdb}' '${_kdb}-wal' '${_kdb}-shm' && \
                   '$<TARGET_FILE:simlab>' simulate \
                   '${CMAKE_SOURCE_DIR}/examples/kredit-de' --db '${_kdb}' \
                   --participants 3 --policy mixed --seed 2")
  set_tests_properties(simulate_cli_timeouts PROPERTIES
    PASS_REGULAR_EXPRESSION "timeout rate [0-9.]+ %: [0-9]+ of 72 simulated")
endif()

# --test from the command line: the mixed model on a within-subject study
# with its null studies, and an unknown test named in the error.
if(TARGET simlab)
  add_test(NAME power_cli_glmm
           COMMAND simlab power ${CMAKE_SOURCE_DIR}/examples/within
                   --participants 4,6 --studies 3 --null-studies 3 --test glmm
                   --screening 5 --quiet
                   --out ${CMAKE_CURRENT_BINARY_DIR}/power-cli-glmm)
  set_tests_properties(power_cli_glmm PROPERTIES
    PASS_REGULAR_EXPRESSION "wrote .*power-cli-glmm/power")
  add_test(NAME power_cli_unknown_test
           COMMAND simlab power ${CMAKE_SOURCE_DIR}/examples/within
                   --participants 4 --test lme4 --out unused)
  set_tests_properties(power_cli_unknown_test PROPERTIES
    PASS_REGULAR_EXPRESSION "--test: expected primary, bootstrap, users, glmm, t or anova, got 'lme4'")
endif()
# `simlab plan`, `simlab status` on looks, simlab-analyze --look --plan.
if(TARGET simlab AND TARGET simlab-analyze)
  add_test(NAME plan_cli_test
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/plan_cli_test.sh
                   $<TARGET_FILE:simlab> $<TARGET_FILE:simlab-analyze>
                   ${CMAKE_SOURCE_DIR})
  set_tests_properties(plan_cli_test PROPERTIES TIMEOUT 900)
endif()
