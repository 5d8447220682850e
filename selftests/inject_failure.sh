#!/bin/sh
# Only run with bp.inject=fail: proves the harness reports a failing test.
. ./ktap.sh
ktap_plan 1
ktap_fail "injected_failure" "deliberate failure (bp.inject=fail)"
ktap_finish
