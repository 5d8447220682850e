#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: proves that the harness reports a failing test: fails when the
#   guest was booted with bp.inject=fail, else skips (kselftest's skip code).
# requires: bp.inject=fail on the kernel command line
. ./bp_lib.sh
grep -qw 'bp.inject=fail' /proc/cmdline || bp_skip_all "only with bp.inject=fail"
ktap_plan 1
ktap_fail "injected_failure" "deliberate failure (bp.inject=fail)"
ktap_finish
