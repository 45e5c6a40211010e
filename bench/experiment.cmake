# Engine benchmark (never run by ctest): durable response recording and
# enrollment, against bare SQLite measured in the same run.
if(TARGET simlab_experiment)
  add_executable(bench_store experiment/bench_store.c)
  target_link_libraries(bench_store PRIVATE simlab_experiment
                        PkgConfig::SQLITE3 simlab_warnings)
endif()
# Coverage of the Change CI on studies simulated by the engine itself.
if(TARGET simlab_experiment AND TARGET simlab_analysis)
  add_executable(coverage_engine experiment/coverage_engine.c)
  target_link_libraries(coverage_engine PRIVATE simlab_experiment
                        simlab_analysis simlab_warnings)
endif()
