# The Slurm batch scripts of experiments/slurm/, submitted with sbatch to a single-node Slurm
# cluster that the test brings up on this machine and removes afterwards (tests/slurm_test.sh,
# docs/cluster.md). Every job must be bit-identical to lenet-serial. Needs root and Debian's
# slurmctld, slurmd, slurm-client and munge; elsewhere it reports SKIPPED (77).
add_test(NAME "slurm: experiments/slurm/ jobs on a one-node cluster, bit-identical to serial"
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/slurm_test.sh ${CMAKE_BINARY_DIR})
# RUN_SERIAL: its node offers 4 CPUs on this 2-core machine; other tests beside it would only
# slow both. TIMEOUT: above the script's own limits (60 s start, 240 s jobs, teardown), so that
# its trap, not CTest's kill, ends a stuck run.
set_tests_properties("slurm: experiments/slurm/ jobs on a one-node cluster, bit-identical to serial"
  PROPERTIES LABELS "slurm" SKIP_RETURN_CODE 77 TIMEOUT 420 RUN_SERIAL TRUE)
