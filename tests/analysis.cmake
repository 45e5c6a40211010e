# Tests of analysis/: numerical goldens, data loading, bootstrap, reports.
simlab_add_test(test_analysis_stats SOURCES test_analysis_stats.c
                LIBS simlab_analysis)
simlab_add_test(test_analysis_pipeline SOURCES test_analysis_pipeline.c
                LIBS simlab_analysis)
simlab_add_test(test_analysis_coverage
                SOURCES test_analysis_coverage.c
                        ${CMAKE_SOURCE_DIR}/bench/analysis/coverage.c
                        ${CMAKE_SOURCE_DIR}/bench/analysis/simstudy.c
                LIBS simlab_analysis)
simlab_add_test(test_analysis_fixtures SOURCES test_analysis_fixtures.c
                LIBS simlab_analysis)
if(TARGET simlab_experiment)
  simlab_add_test(test_analysis_engine SOURCES test_analysis_engine.c
                  LIBS simlab_analysis simlab_experiment)
endif()
simlab_add_test(test_analysis_baseline SOURCES test_analysis_baseline.c
                LIBS simlab_analysis PkgConfig::SQLITE3)
simlab_add_test(test_analysis_within SOURCES test_analysis_within.c
                LIBS simlab_analysis)
simlab_add_test(test_analysis_semantics SOURCES test_analysis_semantics.c
                LIBS simlab_analysis)
simlab_add_test(test_analysis_input SOURCES test_analysis_input.c
                LIBS simlab_analysis)
# Questionnaire summaries against R (tests/data/analysis-questionnaire).
simlab_add_test(test_analysis_questionnaire
                SOURCES test_analysis_questionnaire.c LIBS simlab_analysis)
simlab_add_test(test_analysis_dialect SOURCES test_analysis_dialect.c
                LIBS simlab_analysis)
# Excel's code pages (tests/data/encodings/make_encodings.py).
simlab_add_test(test_analysis_encodings SOURCES test_analysis_encodings.c
                LIBS simlab_analysis)
simlab_add_test(test_analysis_layout SOURCES test_analysis_layout.c
                LIBS simlab_analysis)
# simlab-analyze's progress lines on a clock the test moves.
simlab_add_test(test_analysis_progress SOURCES test_analysis_progress.c
                LIBS simlab_analysis)
# Timeouts and confidence (hand-computed fixture, goldens from R).
simlab_add_test(test_analysis_timeouts SOURCES test_analysis_timeouts.c
                LIBS simlab_analysis)
# The tables reader of simlab stores against the long_format view.
if(TARGET simlab_experiment)
  simlab_add_test(test_analysis_input_store
                  SOURCES test_analysis_input_store.c
                          ${CMAKE_SOURCE_DIR}/bench/analysis/simstudy.c
                          ${CMAKE_SOURCE_DIR}/bench/analysis/storewrite.c
                  LIBS simlab_analysis simlab_experiment)
endif()
# The mixed-effects logistic model against lme4 (tests/data/glmm goldens).
simlab_add_test(test_analysis_glmm SOURCES test_analysis_glmm.c
                LIBS simlab_analysis)
# Interactions with explanations: a hand-counted fixture
# (tests/data/analysis-interactions), a database against its export.
if(TARGET simlab_experiment)
  simlab_add_test(test_analysis_interactions
                  SOURCES test_analysis_interactions.c
                  LIBS simlab_analysis simlab_experiment)
endif()
# Group-sequential boundaries against rpact (tests/data/sequential goldens);
# the second runs rpact itself when R has it, and skips otherwise.
simlab_add_test(test_analysis_sequential SOURCES test_analysis_sequential.c
                LIBS simlab_analysis)
add_test(NAME test_analysis_sequential_rpact
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sequential_rpact.sh
                 $<TARGET_FILE:test_analysis_sequential>
                 ${CMAKE_CURRENT_SOURCE_DIR}/data/sequential/make_boundaries.R)
set_tests_properties(test_analysis_sequential_rpact PROPERTIES
                     SKIP_RETURN_CODE 77)
# report.json's glmm.r run with R's lme4 on every fixture and two exports;
# skips without R.
if(TARGET simlab AND TARGET simlab-analyze)
  add_test(NAME glmm_r_test
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/glmm_r_test.sh
                   $<TARGET_FILE:simlab> $<TARGET_FILE:simlab-analyze>
                   ${CMAKE_SOURCE_DIR})
  set_tests_properties(glmm_r_test PROPERTIES SKIP_RETURN_CODE 77
                       TIMEOUT 900)
endif()
# The primary test of the report: its rows, --primary, the study's block,
# looks, --plan, the size from --calibrate, the order of the report.
simlab_add_test(test_analysis_primary SOURCES test_analysis_primary.c
                LIBS simlab_analysis PkgConfig::JANSSON)
# Explanation metrics against people: rank correlations and glmer's effects
# against R (tests/data/metrics goldens), the report, bad --metrics files.
simlab_add_test(test_analysis_metrics SOURCES test_analysis_metrics.c
                LIBS simlab_analysis)
# The metrics stored with the data (the image demo simulated into a store):
# the bundle's values back to the bit, a --metrics file's winning, a bad
# stored row located.
if(TARGET simlab_experiment)
  simlab_add_test(test_analysis_metrics_store
                  SOURCES test_analysis_metrics_store.c
                  LIBS simlab_analysis simlab_experiment PkgConfig::SQLITE3)
endif()
# Verify trials (error detection: goldens from base R), team and distinction
# by hand, and the coverage of the intervals on 200 simulated studies.
simlab_add_test(test_analysis_verify SOURCES test_analysis_verify.c
                LIBS simlab_analysis)
