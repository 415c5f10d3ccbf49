#!/usr/bin/env bash
# What the set-up installs and leaves behind (docs/packages.md):
#   list:     main.sh's packages (setup.sh --for main) hold none that only the tests use:
#             no Slurm, munge, SimGrid, tiny-dnn, dlib or OpenBLAS.
#   services: no munge, slurmctld or slurmd unit is enabled on this machine (a link in
#             /etc/systemd/system/*.wants would start it at every boot). setup.sh installs them
#             for the Slurm test, which starts its own daemons and stops them again.
# Usage: setup_checks.sh list|services SETUP_SH
set -u
mode=$1 setup=$2
case $mode in
  list)
    packages=$(bash "$setup" --for main --list) || { echo "FAIL: $setup --for main --list failed"; exit 1; }
    echo "$packages"
    # A line is "GROUP PACKAGE...: REASON".
    unwanted=$(sed -E 's/^[a-z]+ +//; s/:.*//' <<<"$packages" | tr ' ' '\n' |
      grep -E '^(slurm.*|munge|libsimgrid-dev|tiny-dnn|libdlib-dev|libopenblas-dev)$')
    if [[ -n $unwanted ]]; then
      echo "FAIL: main.sh would install $(echo $unwanted), which it does not use"
      exit 1
    fi
    echo "ok: main.sh installs none of the test-only packages"
    ;;
  services)
    enabled=$(ls /etc/systemd/system/*.wants/{munge,slurmctld,slurmd}.service 2>/dev/null)
    if [[ -n $enabled ]]; then
      echo "FAIL: enabled, so started at every boot: $(echo $enabled)"
      echo "  (left by a setup.sh older than issue 28? systemctl disable munge slurmctld slurmd, or rm the links)"
      exit 1
    fi
    echo "ok: no munge, slurmctld or slurmd unit enabled in /etc/systemd/system/*.wants"
    ;;
  *) echo "usage: setup_checks.sh list|services SETUP_SH" >&2; exit 2 ;;
esac
