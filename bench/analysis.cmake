# Benchmarks and the coverage study of analysis/ (built, never run by ctest).
set(SIMLAB_BENCH_ANALYSIS ${CMAKE_CURRENT_SOURCE_DIR}/analysis)
add_executable(analysis_gen_csv ${SIMLAB_BENCH_ANALYSIS}/gen_csv.c
               ${SIMLAB_BENCH_ANALYSIS}/simstudy.c)
target_link_libraries(analysis_gen_csv PRIVATE simlab_analysis simlab_warnings)
add_executable(analysis_coverage ${SIMLAB_BENCH_ANALYSIS}/coverage_main.c
               ${SIMLAB_BENCH_ANALYSIS}/coverage.c
               ${SIMLAB_BENCH_ANALYSIS}/simstudy.c)
target_link_libraries(analysis_coverage PRIVATE simlab_analysis
                      simlab_warnings)
add_executable(analysis_bench ${SIMLAB_BENCH_ANALYSIS}/bench_main.c
               ${SIMLAB_BENCH_ANALYSIS}/timing.c
               ${SIMLAB_BENCH_ANALYSIS}/simstudy.c
               ${SIMLAB_BENCH_ANALYSIS}/storewrite.c)
target_compile_definitions(analysis_bench PRIVATE
                           SIMLAB_BENCH_DIR="${CMAKE_CURRENT_SOURCE_DIR}"
                           SIMLAB_ANALYZE_BIN="$<TARGET_FILE:simlab-analyze>")
add_dependencies(analysis_bench simlab-analyze)
target_link_libraries(analysis_bench PRIVATE simlab_analysis simlab_experiment
                      simlab_warnings)
# One GLMM fit against lme4's glmer in the same run (glmm_bench.R).
add_executable(glmm_bench ${SIMLAB_BENCH_ANALYSIS}/glmm_bench.c
               ${SIMLAB_BENCH_ANALYSIS}/timing.c)
target_compile_definitions(glmm_bench PRIVATE
                           SIMLAB_BENCH_DIR="${CMAKE_CURRENT_SOURCE_DIR}")
target_link_libraries(glmm_bench PRIVATE simlab_analysis simlab_warnings)
# The mixed model at the scale of online studies, against a reference
# build in the same run (glmm_scale REF_BUILD [ROUNDS] [PARTS]).
add_executable(glmm_scale ${SIMLAB_BENCH_ANALYSIS}/glmm_scale.c
               ${SIMLAB_BENCH_ANALYSIS}/timing.c
               ${SIMLAB_BENCH_ANALYSIS}/simstudy.c)
target_compile_definitions(glmm_scale PRIVATE
                           SIMLAB_ANALYZE_BIN="$<TARGET_FILE:simlab-analyze>"
                           SIMLAB_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
if(TARGET simlab)
  target_compile_definitions(glmm_scale PRIVATE
                             SIMLAB_BIN="$<TARGET_FILE:simlab>")
  add_dependencies(glmm_scale simlab)
else()
  target_compile_definitions(glmm_scale PRIVATE SIMLAB_BIN="")
endif()
add_dependencies(glmm_scale simlab-analyze)
target_link_libraries(glmm_scale PRIVATE simlab_analysis simlab_warnings)
