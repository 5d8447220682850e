#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: proves that the harness reports a failing test: fails when the
#   guest was booted with bp.inject=fail, else skips (kselftest's skip code).
# requires: /proc/cmdline:bp.inject=fail (make check BP_INJECT=fail boots with it)
. ./bp_lib.sh
ktap_plan 1
ktap_fail "injected_failure" "deliberate failure (bp.inject=fail)"
ktap_finish
