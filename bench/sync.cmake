# Sync benchmark (never run by ctest; bench/sync/run.sh runs it inside a
# throwaway pg_virtualenv cluster): push throughput against bare INSERTs
# and server assignment latency.
if(TARGET simlab_experiment)
  pkg_check_modules(LIBPQ_BENCH REQUIRED IMPORTED_TARGET libpq)
  add_executable(bench_sync sync/bench_sync.c)
  target_link_libraries(bench_sync PRIVATE simlab_experiment
                        PkgConfig::LIBPQ_BENCH PkgConfig::SQLITE3
                        Threads::Threads simlab_warnings)
endif()
