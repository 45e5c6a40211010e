# `simlab serve` (serve/serve*.c, web/, docs/online.md): the protocol and the
# screen JSON without HTTP (test_serve_live), the command line and HTTP
# limits (serve_cli_test.sh), and the browser tests in Debian's chromium
# driven by playwright-core from npm (tests/web/run.sh; skipped without
# node, npm or chromium): a whole participant, a closed tab resumed in a
# fresh profile, offline answers flushed from the journal, the server
# SIGKILLed and restarted, two participants at once, the export of a web
# participant against a desktop one, an explanation on request (its
# events stored and exported), and screenshots of every screen in
# English, German and Arabic (into BUILD/web-shots).
if(NOT TARGET simlab_serve)
  return()
endif()
add_test(NAME serve_cli_test
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/serve_cli_test.sh
                 $<TARGET_FILE:simlab>
                 ${CMAKE_CURRENT_SOURCE_DIR}/data/experiment/mini-forward)
set_tests_properties(serve_cli_test PROPERTIES SKIP_RETURN_CODE 77)
# a stranger's tricks over HTTP (serve_guard_test.py): the pilot link's
# secret, a bundle image swapped for a link, trickling connections, the
# per-address cap, the raised limit of open files; a full disk on a small
# tmpfs (serve_disk_test.py, in a user and mount namespace of its own)
find_program(SIMLAB_PYTHON3 python3)
if(SIMLAB_PYTHON3)
  add_test(NAME serve_guard_test
           COMMAND ${SIMLAB_PYTHON3}
                   ${CMAKE_CURRENT_SOURCE_DIR}/serve_guard_test.py
                   $<TARGET_FILE:simlab>
                   ${CMAKE_CURRENT_SOURCE_DIR}/data/experiment/mini-forward
                   ${CMAKE_SOURCE_DIR}/assets/studies/image-meta/media/example.png)
  set_tests_properties(serve_guard_test PROPERTIES SKIP_RETURN_CODE 77
                       TIMEOUT 120)
  add_test(NAME serve_disk_test
           COMMAND ${SIMLAB_PYTHON3}
                   ${CMAKE_CURRENT_SOURCE_DIR}/serve_disk_test.py
                   $<TARGET_FILE:simlab>
                   ${CMAKE_CURRENT_SOURCE_DIR}/data/experiment/mini-forward)
  set_tests_properties(serve_disk_test PROPERTIES SKIP_RETURN_CODE 77
                       TIMEOUT 180)
endif()
set(SIMLAB_WEB_WORK ${CMAKE_BINARY_DIR}/web-node)
set(SIMLAB_WEB_ENV
  "STUDY_FORWARD=${CMAKE_CURRENT_SOURCE_DIR}/data/experiment/mini-forward"
  "SIMLAB_WEB_SHOTS=${CMAKE_BINARY_DIR}/web-shots"
  "STUDY_EXPLANATIONS=${CMAKE_SOURCE_DIR}/examples/explanation-methods")
foreach(t whole resume offline kill two export reveal access)
  add_test(NAME web_${t}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/web/run.sh ${t}
                   $<TARGET_FILE:simlab> ${SIMLAB_WEB_WORK})
  set_tests_properties(web_${t} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                       ENVIRONMENT "${SIMLAB_WEB_ENV}")
endforeach()
# the item's box in the same place in every condition, at 1280x720,
# 1920x1080 and a 390x844 phone (getBoundingClientRect)
add_test(NAME web_layout
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/web/run.sh layout
                 $<TARGET_FILE:simlab> ${SIMLAB_WEB_WORK})
set_tests_properties(web_layout PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1200
  COST 5000
  ENVIRONMENT "${SIMLAB_WEB_ENV};STUDY_IMAGE=${CMAKE_SOURCE_DIR}/assets/studies/image-meta;STUDY_KREDIT=${CMAKE_SOURCE_DIR}/examples/kredit-de;STUDY_CF=${CMAKE_SOURCE_DIR}/assets/studies/tabular-counterfactual")
# the format of web/*.js and of these tests (prettier, pinned in
# tests/web/package.json; .prettierrc.json)
add_test(NAME web_format
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/web/run.sh format
                 $<TARGET_FILE:simlab> ${SIMLAB_WEB_WORK})
set_tests_properties(web_format PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
# the browser's modules unit-tested under node, no package installed: every
# *.test.mjs (tests/web/unit) that `node --test` finds from the root
find_program(SIMLAB_NODE node)
if(SIMLAB_NODE)
  add_test(NAME web_unit COMMAND ${SIMLAB_NODE} --test
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(web_unit PROPERTIES TIMEOUT 300)
endif()
# nginx in front, with the configuration docs/online.md installs
add_test(NAME web_nginx
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/web/run.sh nginx
                 $<TARGET_FILE:simlab> ${SIMLAB_WEB_WORK})
set_tests_properties(web_nginx PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
  ENVIRONMENT "${SIMLAB_WEB_ENV};NGINX_CONF=${CMAKE_SOURCE_DIR}/docs/online/nginx-simlab.conf")
# The browser's screenshots of a subset that covers every body kind of the
# screen model and every explanation kind, in English and Arabic (right to
# left), and the verify, decide and distinction screens in en, de, ar and ja:
# in every run of the suite (and once in CI: not again under ASan).
add_test(NAME web_shots
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/web/run.sh screens
                 $<TARGET_FILE:simlab> ${SIMLAB_WEB_WORK})
set_tests_properties(web_shots PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800
  COST 9000
  ENVIRONMENT "${SIMLAB_WEB_ENV};LANGS=en:ar;COVER_ALL=1;SIMLAB_WEB_SHOTS=${CMAKE_BINARY_DIR}/web-shots-ci;STUDIES=${CMAKE_CURRENT_SOURCE_DIR}/data/bundles/valid-all:${CMAKE_SOURCE_DIR}/examples/explanation-methods:${CMAKE_CURRENT_SOURCE_DIR}/data/bundles/valid-long-texts:${CMAKE_CURRENT_SOURCE_DIR}/data/experiment/mini-deadline:${CMAKE_SOURCE_DIR}/examples/questionnaire:${CMAKE_CURRENT_SOURCE_DIR}/data/experiment/mini-protocols@en,de,ar,ja")
# The screenshots of every screen of eight studies take about eleven
# minutes: made on purpose (cmake -DSIMLAB_WEB_SCREENS=ON, then
# ctest -R web_screens), not in every run of the suite.
option(SIMLAB_WEB_SCREENS "register web_screens, the browser's screenshots" OFF)
if(SIMLAB_WEB_SCREENS)
add_test(NAME web_screens
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/web/run.sh screens
                 $<TARGET_FILE:simlab> ${SIMLAB_WEB_WORK})
set_tests_properties(web_screens PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800
  ENVIRONMENT "${SIMLAB_WEB_ENV};STUDIES=${CMAKE_SOURCE_DIR}/assets/studies/text-forward:${CMAKE_SOURCE_DIR}/assets/studies/image-meta:${CMAKE_SOURCE_DIR}/assets/studies/tabular-counterfactual:${CMAKE_CURRENT_SOURCE_DIR}/data/bundles/valid-all:${CMAKE_CURRENT_SOURCE_DIR}/data/experiment/mini-deadline:${CMAKE_SOURCE_DIR}/examples/questionnaire:${CMAKE_SOURCE_DIR}/examples/explanation-methods:${CMAKE_CURRENT_SOURCE_DIR}/data/bundles/valid-long-texts")
endif()
foreach(t live access clock conn)
  simlab_add_test(test_serve_${t} SOURCES test_serve_${t}.c
                  LIBS simlab_serve simlab_experiment simlab_stimuli
                       simlab_common PkgConfig::SQLITE3)
endforeach()
# The browser's JSON is the screen model serialised: one table row per
# member of experiment/screen_model.h's structs.
simlab_add_test(test_serve_view SOURCES test_serve_view.c
                LIBS simlab_serve simlab_experiment simlab_stimuli
                     simlab_common
                ARGS ${CMAKE_SOURCE_DIR})
