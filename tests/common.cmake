simlab_add_test(test_common SOURCES test_common.c LIBS simlab_common)
simlab_add_test(test_common_csv SOURCES test_common_csv.c LIBS simlab_common)
add_test(NAME check_layers
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_layers.sh ${CMAKE_SOURCE_DIR})
