#!/bin/sh
# check_doc_examples.sh DOC ROOT: every ```c block that follows a line
# "<!-- example: PATH -->" in DOC must be the file ROOT/PATH byte for byte,
# so that the examples of docs/api.md are the samples the tests compile and
# run. Prints each example checked; exits 1 on the first difference.
doc=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk -v out="$tmp" '
  /^<!-- example: [^ ]+ -->$/ { path = $3; want = 1; next }
  want && /^```c$/ { n++; f = out "/" n ".c"; print path > (out "/" n ".path"); printf "" > f;
                      inblk = 1; want = 0; next }
  inblk && /^```$/ { inblk = 0; next }
  inblk { print >> f }
' "$doc"
count=0
for p in "$tmp"/*.path; do
  [ -e "$p" ] || break
  path=$(cat "$p")
  if ! cmp -s "${p%.path}.c" "$root/$path"; then
    echo "check_doc_examples: the example of $path in $doc differs from the file:"
    diff "${p%.path}.c" "$root/$path" | head -20
    exit 1
  fi
  echo "ok $path"
  count=$((count + 1))
done
if [ "$count" -eq 0 ]; then
  echo "check_doc_examples: no examples found in $doc"
  exit 1
fi
echo "$count examples match"
