# scripts/fetch-hase2020.sh: installing the published Hase & Bansal 2020
# stimuli from a local folder (the workbooks kept in ../shared), checksum
# failures included. Skips (77) without the shared data. It converts every
# workbook: minutes under a sanitizer on a busy machine.
if(TARGET simlab)
  set(SIMLAB_FETCH_TEST_SIMLAB $<TARGET_FILE:simlab>)
else()
  set(SIMLAB_FETCH_TEST_SIMLAB "")
endif()
add_test(NAME test_fetch_hase2020
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_fetch_hase2020.sh
                 ${CMAKE_SOURCE_DIR} ${SIMLAB_SHARED_DIR}
                 ${SIMLAB_FETCH_TEST_SIMLAB})
set_tests_properties(test_fetch_hase2020 PROPERTIES SKIP_RETURN_CODE 77
                     TIMEOUT 600)
