# The Slurm batch scripts of experiments/slurm/, submitted with sbatch to a Slurm cluster that the
# test brings up on this machine and removes afterwards (tests/slurm_test.sh, docs/cluster.md):
# one node for the one-node jobs, and two slurmd nodes in network namespaces of their own for
# the two-node ones (srun --mpi=pmix across nodes). Every job must be bit-identical to
# lenet-serial. Needs root, Debian's slurmctld, slurmd, slurm-client and munge, and network
# namespaces; elsewhere it reports SKIPPED (77).
set(_slurm_test "slurm: experiments/slurm/ jobs on 1 node and on 2 nodes, bit-identical to serial")
add_test(NAME "${_slurm_test}"
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/slurm_test.sh ${CMAKE_BINARY_DIR})
# RUN_SERIAL: its nodes offer 8 CPUs on this 2-core machine; other tests beside it would only
# slow both. TIMEOUT: above the script's own limits (60 s start, 240 s jobs, teardown), so that
# its trap, not CTest's kill, ends a stuck run.
set_tests_properties("${_slurm_test}"
  PROPERTIES LABELS "slurm" SKIP_RETURN_CODE 77 TIMEOUT 420 RUN_SERIAL TRUE)
