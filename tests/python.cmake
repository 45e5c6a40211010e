# simlab's Python package (python/simlab): its tests, one ctest entry per
# module, with Debian's python3 and its python3-numpy and python3-pandas
# (scripts/setup.sh installs them; /usr/bin/python3 is preferred to another
# python3 on PATH, which may lack them). They run the simlab and
# simlab-analyze of this build; without numpy they are skipped.
find_program(SIMLAB_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT SIMLAB_PYTHON3)
  find_program(SIMLAB_PYTHON3 NAMES python3)
endif()
if(SIMLAB_PYTHON3 AND TARGET simlab)
  foreach(module kinds errors examples results)
    add_test(NAME python_${module}
             COMMAND ${SIMLAB_PYTHON3} ${CMAKE_SOURCE_DIR}/python/tests/run.py
                     test_${module}
             WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/python/tests)
    set_tests_properties(python_${module} PROPERTIES
      SKIP_RETURN_CODE 77 TIMEOUT 600
      ENVIRONMENT "SIMLAB=$<TARGET_FILE:simlab>;SIMLAB_ANALYZE=$<TARGET_FILE:simlab-analyze>;PYTHONDONTWRITEBYTECODE=1")
  endforeach()
endif()
