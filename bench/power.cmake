# `simlab power` speed (never run by ctest): the demo's 500 studies x 4 sizes
# with curtailed replicates, against all B replicates in the same run.
if(TARGET simlab_power)
  add_executable(bench_power power/bench_power.c)
  target_link_libraries(bench_power PRIVATE simlab_power simlab_warnings)
  target_compile_definitions(bench_power PRIVATE
    SIMLAB_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
endif()
