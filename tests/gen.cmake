# Tests of the demo-study generator (stimuli/gen) and of the committed
# bundles in assets/studies. The generator's own CMakeLists is pulled in
# here when stimuli/ does not add it itself.
if(NOT TARGET simlab_gen)
  add_subdirectory(${CMAKE_SOURCE_DIR}/stimuli/gen
                   ${CMAKE_BINARY_DIR}/stimuli/gen)
endif()

# (1) The committed bundles are what the generator writes from its seed.
simlab_add_test(test_gen_bundles SOURCES test_gen_bundles.c LIBS simlab_gen)
set_tests_properties(test_gen_bundles PROPERTIES TIMEOUT 600)

# (2) The models learned what the demo says, and the bundles store their
# real outputs (also on every counterfactual) and faithful LIME fits.
simlab_add_test(test_gen_models SOURCES test_gen_models.c LIBS simlab_gen)
set_tests_properties(test_gen_models PROPERTIES TIMEOUT 600)

# (3) Attribution maps: distinct methods, background evidence of the biased
# model, a control map that ignores the model.
# The committed maps are read with the runner's reader (stimuli/media.h).
simlab_add_test(test_gen_attr SOURCES test_gen_attr.c
                LIBS simlab_stimuli simlab_gen)
set_tests_properties(test_gen_attr PROPERTIES TIMEOUT 600)

# (4) The Hase & Bansal writer frees what it built when the domain fails.
simlab_add_test(test_gen_hase SOURCES test_gen_hase.c LIBS simlab_gen)

# (5) Every committed bundle passes `simlab check` (check_bundle) cleanly
# and has the balance its protocol asks for.
if(TARGET simlab_stimuli)
  simlab_add_test(test_gen_check SOURCES test_gen_check.c
                  LIBS simlab_stimuli simlab_gen)
endif()
