# Runner tests (app/): unit tests of the drawing helpers, of input
# translation and of the start-screen controller, a preview of every screen,
# and end-to-end autopilot runs of `simlab run` under SDL's dummy video
# driver. All need SDL2; a build without it checks that `simlab run` says so.
if(NOT TARGET simlab_runner)
  if(TARGET simlab)
    add_test(NAME app_run_unavailable
             COMMAND simlab run ${CMAKE_SOURCE_DIR}/assets/studies/text-forward)
    set_tests_properties(app_run_unavailable PROPERTIES
      PASS_REGULAR_EXPRESSION "this build of simlab has no runner")
  endif()
  return()
endif()
simlab_add_test(test_app_units SOURCES test_app_units.c
                LIBS simlab_ui simlab_stimuli simlab_common PkgConfig::SDL2)
set_tests_properties(test_app_units PROPERTIES
  ENVIRONMENT "SDL_VIDEODRIVER=dummy;SIMLAB_ASSETS=${CMAKE_SOURCE_DIR}/assets")
# Mirrored participant screens in a right-to-left study, without a window.
simlab_add_test(test_app_rtl SOURCES test_app_rtl.c
                LIBS simlab_ui simlab_stimuli simlab_common PkgConfig::SDL2)
set_tests_properties(test_app_rtl PROPERTIES
  ENVIRONMENT "SDL_VIDEODRIVER=dummy;SIMLAB_ASSETS=${CMAKE_SOURCE_DIR}/assets")
# Mixed-direction text: the bidi core (levels, rule L2, mirroring) and
# text_flow's word order and alignment, bold fallback faces.
simlab_add_test(test_app_bidi SOURCES test_app_bidi.c
                LIBS simlab_ui simlab_stimuli simlab_common PkgConfig::SDL2)
set_tests_properties(test_app_bidi PROPERTIES
  ENVIRONMENT "SDL_VIDEODRIVER=dummy;SIMLAB_ASSETS=${CMAKE_SOURCE_DIR}/assets")
# Input translation and the start-screen controller, without a window.
simlab_add_test(test_app_control SOURCES test_app_control.c
                LIBS simlab_runner simlab_ui simlab_experiment simlab_stimuli
                     simlab_common PkgConfig::SDL2)

# Station settings (station.conf) and rush's record, without a window.
simlab_add_test(test_app_station SOURCES test_app_station.c
                LIBS simlab_runner simlab_common)

# simlab run --rush, station.conf and selftest --rush, end to end.
add_test(NAME app_rush
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/rush_test.sh
                 $<TARGET_FILE:simlab>
                 ${CMAKE_CURRENT_SOURCE_DIR}/data/experiment/mini-forward)
set_tests_properties(app_rush PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)

# Every screen and explanation kind, drawn from hand-built views.
add_test(NAME app_preview
         COMMAND simlab-preview ${CMAKE_CURRENT_BINARY_DIR}/app-preview 1280x720)
set_tests_properties(app_preview PROPERTIES ENVIRONMENT "SDL_VIDEODRIVER=dummy")

# A complete autopilot session of each preset, checked row by row.
simlab_add_test(test_app_run SOURCES test_app_run.c
                LIBS simlab_experiment simlab_common PkgConfig::SQLITE3
                ARGS $<TARGET_FILE:simlab> meta-image plain)
foreach(bundle text-forward text-counterfactual tabular-forward
        tabular-counterfactual)
  string(REPLACE "-" "_" name test_app_run_${bundle})
  add_test(NAME ${name} COMMAND test_app_run $<TARGET_FILE:simlab> ${bundle}
           plain)
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
endforeach()
# The bundled demo studies (image meta-predictor with heatmaps, text and
# tabular Hase-style studies).
foreach(demo image-meta text-forward text-counterfactual tabular-forward
        tabular-counterfactual)
  string(REPLACE "-" "_" name test_app_demo_${demo})
  add_test(NAME ${name} COMMAND test_app_run $<TARGET_FILE:simlab>
           demo-${demo} plain)
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
endforeach()
# Answer deadlines (timeouts and their message) and confidence scales, also
# with the participant's tries to escape and the experimenter's pauses.
add_test(NAME test_app_run_deadline COMMAND test_app_run
         $<TARGET_FILE:simlab> deadline plain)
add_test(NAME test_app_run_deadline_chaos COMMAND test_app_run
         $<TARGET_FILE:simlab> deadline chaos)
# The participant cannot escape or answer early; the experimenter pauses.
add_test(NAME test_app_escape COMMAND test_app_run $<TARGET_FILE:simlab>
         demo-text-forward chaos)
add_test(NAME test_app_escape_image COMMAND test_app_run
         $<TARGET_FILE:simlab> meta-image chaos)
# A timing log that cannot be written stops the run before it starts.
add_test(NAME test_app_timing_log_unwritable
         COMMAND simlab run ${CMAKE_SOURCE_DIR}/assets/studies/text-forward
                 --db ${CMAKE_CURRENT_BINARY_DIR}/timing-log-unwritable.db
                 --autopilot model
                 --timing-log ${CMAKE_CURRENT_BINARY_DIR}/no-such-dir/t.log)
set_tests_properties(test_app_timing_log_unwritable PROPERTIES
  ENVIRONMENT "SDL_VIDEODRIVER=dummy"
  PASS_REGULAR_EXPRESSION "no-such-dir/t.log: cannot open the timing log"
  TIMEOUT 120)
# An image replaced after the check: the run pauses with a media_error
# event before the participant sees (or answers) it.
simlab_add_test(test_app_media SOURCES test_app_media.c
                LIBS PkgConfig::SQLITE3 ARGS $<TARGET_FILE:simlab>)
set_tests_properties(test_app_media PROPERTIES TIMEOUT 120)
# Piloting screenshots: one participant per condition, names, tall screens.
simlab_add_test(test_app_shots SOURCES test_app_shots.c
                LIBS PkgConfig::SQLITE3 ARGS $<TARGET_FILE:simlab>)
set_tests_properties(test_app_shots PROPERTIES TIMEOUT 180)
# SIGKILL at random moments; resume until every step is answered once.
add_test(NAME test_app_kill COMMAND test_app_run $<TARGET_FILE:simlab>
         demo-tabular-forward kill)
set_tests_properties(test_app_escape test_app_escape_image test_app_kill
  PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
# Key press stamps: the keysym table and the event watch without X; the
# input thread (XInput 2 raw events) stamping XTest presses under Xvfb.
simlab_add_test(test_app_rawinput SOURCES test_app_rawinput.c
                LIBS simlab_runner PkgConfig::SDL2)
set_tests_properties(test_app_rawinput PROPERTIES
  ENVIRONMENT "SDL_VIDEODRIVER=dummy")
find_program(XVFB_RUN xvfb-run)
if(XVFB_RUN)
  add_test(NAME test_app_rawinput_x11
           COMMAND ${XVFB_RUN} -a -s "-screen 0 640x480x24"
                   $<TARGET_FILE:test_app_rawinput> x11)
  # SDL's X11 backend (D-Bus) and Mesa leave a few allocations at exit,
  # outside simlab: no leak check under X (the dummy-driver runs have it).
  set_tests_properties(test_app_rawinput_x11 PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 60 ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
endif()
# `simlab selftest` under Xvfb (a few seconds) and with the dummy driver:
# the report's keys, --db and the export sidecar. It measures key latency, so
# it runs alone (RUN_SERIAL): beside the PostgreSQL tests under ASan its
# frames slowed to ~0.4 s and a press near the end went unrecorded.
add_test(NAME test_app_selftest
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/selftest_test.sh
                 $<TARGET_FILE:simlab> ${CMAKE_CURRENT_SOURCE_DIR}/data/app/meta-image)
set_tests_properties(test_app_selftest PROPERTIES
  SKIP_RETURN_CODE 77 TIMEOUT 120 RUN_SERIAL TRUE
  ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
# Text always fits: every screen of the demo, example and test bundles in
# en, de, zh-Hans and ar at 1280x720 and 1920x1080, without a window.
simlab_add_test(test_app_layout SOURCES test_app_layout.c
                LIBS simlab_ui simlab_experiment simlab_stimuli simlab_common
                     PkgConfig::SDL2
                ARGS ${CMAKE_SOURCE_DIR})
set_tests_properties(test_app_layout PROPERTIES TIMEOUT 900
  ENVIRONMENT "SDL_VIDEODRIVER=dummy;SIMLAB_ASSETS=${CMAKE_SOURCE_DIR}/assets")
# What the desktop shows of every screen of the bundled and example studies
# in en, de, ar and ja, beside the browser's JSON of it (the screen model),
# one line per screen; web_texts (tests/web.cmake) draws the JSON with
# web/screens.js and compares the two.
if(TARGET simlab_serve)
  simlab_add_test(test_screen_texts SOURCES test_screen_texts.c
                  LIBS simlab_ui simlab_serve simlab_experiment
                       simlab_stimuli simlab_common PkgConfig::SDL2
                  ARGS ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/screen-texts.jsonl)
  set_tests_properties(test_screen_texts PROPERTIES TIMEOUT 900
    FIXTURES_SETUP screen_texts
    ENVIRONMENT "SDL_VIDEODRIVER=dummy;SIMLAB_ASSETS=${CMAKE_SOURCE_DIR}/assets")
  find_program(SIMLAB_NODE node)
  if(SIMLAB_NODE)
    add_test(NAME web_texts
             COMMAND ${SIMLAB_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/web/texts.mjs
                     ${CMAKE_BINARY_DIR}/screen-texts.jsonl)
    set_tests_properties(web_texts PROPERTIES FIXTURES_REQUIRED screen_texts
                         TIMEOUT 300)
  endif()
endif()
