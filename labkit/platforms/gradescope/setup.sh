#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image (Ubuntu 22.04): the
# packages lab @LAB@'s build needs, then the reference's build, so that each submission
# recompiles only its own file. Made by `bash run_scripts/lab.sh gradescope @LAB@ OUT.zip`.
set -euo pipefail
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmake g++ make zlib1g-dev libcli11-dev \
  catch2 libopenmpi-dev openmpi-bin libbenchmark-dev python3 bubblewrap >/dev/null
source=${AUTOGRADER_ROOT:-/autograder}/source
python3 "$source/project/labkit/lab.py" grade @LAB@ "$source/project" --no-timing \
  --out /tmp/reference-grade
