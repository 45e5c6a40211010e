# Tests of analysis/: numerical goldens, data loading, bootstrap, reports.
simlab_add_test(test_analysis_stats SOURCES test_analysis_stats.c
                LIBS simlab_analysis)
simlab_add_test(test_analysis_pipeline SOURCES test_analysis_pipeline.c
                LIBS simlab_analysis)
