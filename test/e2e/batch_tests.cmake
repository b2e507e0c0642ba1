# ppe_batch_tests: endings a batch system deals out, under a real one-node Slurm (test/slurm/cluster.sh,
# started once as a CTest fixture and stopped at the end) and with the snapshot signal alone.
# batch_job is a CPU-bound job, linked with libppe (batch_job) or not (batch_job_plain, for `ppe`).
ppe_fixture(batch_job batch_job.c -O1 -Wl,--push-state,--no-as-needed $<TARGET_FILE:ppe> -Wl,--pop-state)
set_target_properties(batch_job PROPERTIES BUILD_RPATH $<TARGET_FILE_DIR:ppe>)
add_dependencies(batch_job ppe)
ppe_fixture(batch_job_plain batch_job.c -O1)

set(slurm_dir ${CMAKE_CURRENT_BINARY_DIR}/slurm-cluster)
add_executable(ppe_batch_tests batch_test.cc slurm_test.cc batch_support.cc)
target_link_libraries(ppe_batch_tests PRIVATE ppe_test_support ppe_profile GTest::gtest_main)
add_dependencies(ppe_batch_tests batch_job batch_job_plain ppe_launcher ppeout)
target_compile_definitions(ppe_batch_tests PRIVATE
  PPE_BATCH_JOB="$<TARGET_FILE:batch_job>"
  PPE_BATCH_JOB_PLAIN="$<TARGET_FILE:batch_job_plain>"
  PPE_LAUNCHER="$<TARGET_FILE:ppe_launcher>"
  PPEOUT="$<TARGET_FILE:ppeout>"
  PPE_SLURM_DIR="${slurm_dir}")

add_test(NAME slurm_cluster_start COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/../slurm/cluster.sh start ${slurm_dir})
add_test(NAME slurm_cluster_stop COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/../slurm/cluster.sh stop ${slurm_dir})
set_tests_properties(slurm_cluster_start PROPERTIES FIXTURES_SETUP slurm_cluster LABELS "e2e;slurm")
set_tests_properties(slurm_cluster_stop PROPERTIES FIXTURES_CLEANUP slurm_cluster LABELS "e2e;slurm")
# POST_BUILD: CTest resolves fixtures before it runs anything, so the tests must be known by then.
# Label e2e-slurm, with e2e, and slurm on the SlurmTest ones (test/labels.cmake): ctest -L and -LE
# take regular expressions, so -L e2e and -L slurm select them all, and -LE slurm leaves them out.
ppe_discover_tests(ppe_batch_tests e2e-slurm POST_BUILD FIXTURES_REQUIRED slurm_cluster)
