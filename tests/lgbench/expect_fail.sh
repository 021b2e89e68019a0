#!/bin/sh
# Run lgbench with an injected fault and require that it notices: exit
# status 1 and the summary line given as the first argument.
#   expect_fail.sh "tests:2 passed:0 failed:2" lgbench --fault=value ...
want=$1
shift
out=$("$@")
rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne 1 ]; then
  echo "expect_fail: exit status $rc, want 1" >&2
  exit 1
fi
case "$out" in
*"$want"*) exit 0 ;;
esac
echo "expect_fail: no '$want' in the output" >&2
exit 1
