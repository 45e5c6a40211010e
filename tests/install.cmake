# `cmake --install` into a fresh prefix, the installed programs run from
# another folder on the installed demo studies, the manual pages checked
# against --help (cmake/install.cmake).
if(TARGET simlab)
  add_test(NAME install_test
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/install_test.sh
                   ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR} ${SIMLAB_HAVE_SDL}
                   ${SIMLAB_HAVE_MAN})
  set_tests_properties(install_test PROPERTIES TIMEOUT 300)
endif()
# scripts/install.sh, the README's install command, as root, as a user with
# sudo and without, with stand-ins for id, sudo and apt-get.
add_test(NAME install_script_test
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/install_script_test.sh
                 ${CMAKE_SOURCE_DIR})
