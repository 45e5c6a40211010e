# Sync to PostgreSQL (experiment/sync*.c, docs/multisite.md).
# test_sync_url: password redaction and escaping, no server. test_pg: one
# throwaway cluster from pg_virtualenv -t (postgresql-common) for every
# server test (tests/pg/run.sh: test_pg_sync on a server set up the old
# way, test_pg_secure with station roles attacking each other's rows, then
# the faults with the simlab program: server stopped mid-study, station
# SIGKILLed during a push, analysis of the server against the station
# files, also for the questionnaire answers of examples/questionnaire
# and the interactions of examples/explanation-methods,
# three stations with one SIGKILLed staying balanced, simlab run --sync
# under Xvfb; then secrets.py, a password planted in 27 connection-string
# forms found nowhere); skipped with a message without pg_virtualenv.
if(NOT TARGET simlab_experiment)
  return()
endif()
simlab_add_test(test_sync_url SOURCES pg/test_sync_url.c LIBS simlab_common)
pkg_check_modules(LIBPQ_TEST REQUIRED IMPORTED_TARGET libpq)
add_executable(test_pg_sync pg/test_pg_sync.c)
target_link_libraries(test_pg_sync PRIVATE simlab_experiment
                      PkgConfig::LIBPQ_TEST PkgConfig::SQLITE3
                      Threads::Threads simlab_warnings)
target_include_directories(test_pg_sync PRIVATE ${PROJECT_SOURCE_DIR})
target_compile_definitions(test_pg_sync PRIVATE
  SIMLAB_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
  SIMLAB_TEST_DATA="${SIMLAB_TEST_DATA}" _DEFAULT_SOURCE)
add_executable(test_pg_secure pg/test_pg_secure.c)
target_link_libraries(test_pg_secure PRIVATE simlab_experiment
                      PkgConfig::LIBPQ_TEST PkgConfig::SQLITE3
                      Threads::Threads simlab_warnings)
target_include_directories(test_pg_secure PRIVATE ${PROJECT_SOURCE_DIR})
target_compile_definitions(test_pg_secure PRIVATE
  SIMLAB_SOURCE_DIR="${CMAKE_SOURCE_DIR}" _DEFAULT_SOURCE)
if(TARGET simlab AND TARGET simlab-analyze)
  add_test(NAME test_pg
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/pg/run.sh
                   $<TARGET_FILE:test_pg_sync> $<TARGET_FILE:test_pg_secure>
                   $<TARGET_FILE:simlab>
                   $<TARGET_FILE:simlab-analyze>
                   ${CMAKE_SOURCE_DIR}/assets/studies/text-forward
                   ${CMAKE_SOURCE_DIR}/examples/questionnaire
                   ${CMAKE_SOURCE_DIR}/examples/explanation-methods)
  set_tests_properties(test_pg PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600
                       RUN_SERIAL TRUE)
endif()

# A test of simlab serve against a throwaway PostgreSQL cluster: RUNNER
# runs SCRIPT with simlab and the mini-forward study (skipped without
# pg_virtualenv or NEEDS).
function(simlab_pg_serve_test name needs runner script)
  add_test(NAME ${name}
           COMMAND sh -c "command -v pg_virtualenv >/dev/null && command -v ${needs} >/dev/null || { echo 'skipped: pg_virtualenv or ${needs} missing'; exit 77; }; exec pg_virtualenv -t ${runner} \"$0\" \"$1\" \"$2\""
                   ${CMAKE_CURRENT_SOURCE_DIR}/pg/${script}
                   $<TARGET_FILE:simlab>
                   ${CMAKE_CURRENT_SOURCE_DIR}/data/experiment/mini-forward)
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                       RUN_SERIAL TRUE)
endfunction()

if(TARGET simlab AND TARGET simlab_serve)
  # simlab serve on two stations syncing to one server (web_inner.sh):
  # server-side assignment across both, every response pushed
  simlab_pg_serve_test(test_pg_web node sh web_inner.sh)
  # simlab serve --sync while PostgreSQL holds the assignment lock and
  # while it is stopped (web_enroll.py): ten consents at once each answered
  # within 2 s, a participant already in the study unaffected
  simlab_pg_serve_test(test_pg_enroll python3 python3 web_enroll.py)
endif()
