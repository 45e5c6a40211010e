# Installation: simlab, simlab-analyze and simlab-preview in bin/, their
# data in share/simlab/ (fonts, the runner's languages as language files,
# the demo studies), the manual pages simlab(1), simlab-analyze(1) and
# simlab-preview(1) made from the programs' --help at build time
# (help2man), the documentation (docs/) and the example studies in
# share/doc/simlab/ and share/doc/simlab/examples/, the Python package in
# Debian's lib/python3/dist-packages/simlab, and the Debian package
# (cpack -G DEB, its Depends from dpkg-shlibdeps).
#
# The programs find their data as ../share/simlab from their own folder
# (app/gfx.c, gfx_find_assets); the build tree stages the source's assets/
# the same way (BUILD/share/simlab), so no path is compiled in and
# build/app/simlab runs as the installed one does.

set(SIMLAB_DATA_DIRS fonts lang studies)
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/share/simlab)
foreach(d IN LISTS SIMLAB_DATA_DIRS)
  file(CREATE_LINK ${CMAKE_SOURCE_DIR}/assets/${d}
       ${CMAKE_BINARY_DIR}/share/simlab/${d} SYMBOLIC)
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/assets/${d}
          DESTINATION share/simlab)
endforeach()

# The browser front end of `simlab serve` (web/: HTML, JavaScript modules,
# CSS), served from share/simlab/web by simlab itself.
file(CREATE_LINK ${CMAKE_SOURCE_DIR}/web ${CMAKE_BINARY_DIR}/share/simlab/web
     SYMBOLIC)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/web/ DESTINATION share/simlab/web
        FILES_MATCHING PATTERN "*.html" PATTERN "*.js" PATTERN "*.css")

set(SIMLAB_PROGRAMS simlab-analyze)
if(TARGET simlab)
  list(APPEND SIMLAB_PROGRAMS simlab)
endif()
if(TARGET simlab-preview)
  list(APPEND SIMLAB_PROGRAMS simlab-preview)
endif()
install(TARGETS ${SIMLAB_PROGRAMS} RUNTIME DESTINATION bin)
install(FILES ${CMAKE_SOURCE_DIR}/LICENSE ${CMAKE_SOURCE_DIR}/README.md
        DESTINATION share/doc/simlab)

# What the README, --help and the manual pages point to: docs/ (with its
# screenshots and the nginx examples of online.md) and the example studies
# (without the published Hase & Bansal materials a user fetched into
# examples/hase2020/*/data).
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION share/doc/simlab
        FILES_MATCHING PATTERN "*.md" PATTERN "*.png" PATTERN "*.conf")
install(DIRECTORY ${CMAKE_SOURCE_DIR}/examples/
        DESTINATION share/doc/simlab/examples
        PATTERN "__pycache__" EXCLUDE
        PATTERN "*.db*" EXCLUDE
        REGEX "hase2020/[^/]+/data$" EXCLUDE)
# simlab's Python package (docs/python.md), for Debian's python3.
install(DIRECTORY ${CMAKE_SOURCE_DIR}/python/simlab
        DESTINATION lib/python3/dist-packages
        FILES_MATCHING PATTERN "*.py" PATTERN "*.md"
        PATTERN "__pycache__" EXCLUDE)

# Manual pages from --help (the help texts: app/help.c, analysis/main.c).
find_program(HELP2MAN help2man)
if(HELP2MAN)
  set(SIMLAB_MAN_DIR ${CMAKE_BINARY_DIR}/man)
  set(SIMLAB_MAN_simlab "runs and records simulatability experiments")
  set(SIMLAB_MAN_simlab-analyze
      "tables and plots of simulatability experiments")
  set(SIMLAB_MAN_simlab-preview
      "draws every screen of simlab's runner as PNG files")
  set(SIMLAB_MAN_PAGES)
  foreach(p IN LISTS SIMLAB_PROGRAMS)
    add_custom_command(
      OUTPUT ${SIMLAB_MAN_DIR}/${p}.1 ${SIMLAB_MAN_DIR}/${p}.1.gz
      COMMAND ${CMAKE_COMMAND} -E make_directory ${SIMLAB_MAN_DIR}
      COMMAND ${HELP2MAN} --no-info --section=1 --source=simlab
              "--name=${SIMLAB_MAN_${p}}" --output=${SIMLAB_MAN_DIR}/${p}.1
              $<TARGET_FILE:${p}>
      COMMAND gzip -9 -n -f -k ${SIMLAB_MAN_DIR}/${p}.1
      DEPENDS ${p}
      COMMENT "Manual page ${p}(1) from ${p} --help"
      VERBATIM)
    list(APPEND SIMLAB_MAN_PAGES ${SIMLAB_MAN_DIR}/${p}.1.gz)
  endforeach()
  add_custom_target(simlab_man ALL DEPENDS ${SIMLAB_MAN_PAGES})
  install(FILES ${SIMLAB_MAN_PAGES} DESTINATION share/man/man1)
  set(SIMLAB_HAVE_MAN ON)
else()
  message(WARNING "help2man not found: no manual pages (scripts/setup.sh "
                  "installs it)")
  set(SIMLAB_HAVE_MAN OFF)
endif()

# The Debian package: cpack -G DEB in the build folder.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME simlab)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "simlab maintainers"
    CACHE STRING "Maintainer field of the Debian package")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "runs, records and analyses simulatability experiments")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "Human-subject simulatability experiments: can people predict a model's
outputs after seeing its explanations? simlab checks study bundles, runs
participants in its SDL2 runner, records every response in SQLite and
exports the data; simlab-analyze writes the accuracy-change and Utility
tables and plots. Demo studies in /usr/share/simlab/studies, the
documentation and example studies in /usr/share/doc/simlab, and the Python
package simlab (studies from numpy arrays, results into pandas) for
python3.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Characters DejaVu lacks (Arabic, CJK, emoji) come from fontconfig's
# fallback fonts (docs/runner.md "Fonts").
# python3 with numpy runs the Python package (pandas for DataFrames).
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS
    "fonts-noto-core, fonts-noto-cjk, fonts-noto-color-emoji, python3, python3-numpy")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-pandas")
set(CPACK_PACKAGE_CHECKSUM SHA256)
include(CPack)
