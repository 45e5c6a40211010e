# stimuli: study bundle loading and checking (unit tests on small fixtures,
# broken bundles, and the four Hase & Bansal 2020 studies from ../shared).
simlab_add_test(test_stimuli SOURCES test_stimuli.c LIBS simlab_stimuli)
simlab_add_test(test_stimuli_bad SOURCES test_stimuli_bad.c
                LIBS simlab_stimuli)
simlab_add_test(test_stimuli_within SOURCES test_stimuli_within.c
                LIBS simlab_stimuli)
simlab_add_test(test_stimuli_media SOURCES test_stimuli_media.c
                LIBS simlab_stimuli)
simlab_add_test(test_stimuli_hase SOURCES test_stimuli_hase.c
                LIBS simlab_stimuli)
simlab_add_test(test_stimuli_kinds SOURCES test_stimuli_kinds.c
                LIBS simlab_stimuli)
# The explanation primitives and reveal (docs/study-format.md).
simlab_add_test(test_stimuli_prims SOURCES test_stimuli_prims.c
                LIBS simlab_stimuli)
simlab_add_test(test_stimuli_page SOURCES test_stimuli_page.c
                LIBS simlab_stimuli)
simlab_add_test(test_stimuli_csv_dialect SOURCES test_stimuli_csv_dialect.c
                LIBS simlab_stimuli)
simlab_add_test(test_stimuli_encodings SOURCES test_stimuli_encodings.c
                LIBS simlab_stimuli PkgConfig::JANSSON)
simlab_add_test(test_stimuli_ui SOURCES test_stimuli_ui.c LIBS simlab_stimuli)
simlab_add_test(test_stimuli_glyphs SOURCES test_stimuli_glyphs.c
                LIBS simlab_stimuli PkgConfig::JANSSON)
simlab_add_test(test_stimuli_authoring SOURCES test_stimuli_authoring.c
                LIBS simlab_stimuli)
# study.json "analysis": the primary test, alpha, looks; located errors.
simlab_add_test(test_stimuli_primary SOURCES test_stimuli_primary.c
                LIBS simlab_stimuli PkgConfig::JANSSON)
# study.json "metrics": explanation metrics read and checked; located errors.
simlab_add_test(test_stimuli_metrics SOURCES test_stimuli_metrics.c
                LIBS simlab_stimuli PkgConfig::JANSSON)
# Per-item answer options, per-option payloads, classes from a file (1,000),
# hive-distinction and its starter; one located error per bad input.
simlab_add_test(test_stimuli_options SOURCES test_stimuli_options.c
                LIBS simlab_stimuli)
