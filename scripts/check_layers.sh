#!/usr/bin/env bash
# The layers of src/ depend one way, each only on those listed before it:
#   common <- memory <- primitives <- graph (builder, plan, executor) <- passes (compiler)
# An #include "<folder>/..." from a folder to a later one (and so any include
# cycle between folders) fails, naming the file and the line. Run by CTest
# (test check_layers) and usable by hand: scripts/check_layers.sh [src dir].
#
# Inside primitives, each folder is a kernel kind with private files, except
# the shared ones (simd/: the vector layers and math every kind uses). A file
# outside primitives/<kind>/ may include from it only the kind's public
# kernel header primitives/<kind>/<kind>.h; anything else two kinds share
# lives in simd/ or directly in primitives/.
set -u
src=${1:-$(dirname "$0")/../src}
layers=(common memory primitives graph passes)
rank() { local i; for i in "${!layers[@]}"; do [ "${layers[$i]}" = "$1" ] && echo "$i" && return; done; echo -1; }
bad=0
for from in "${layers[@]}"; do
  [ -d "$src/$from" ] || continue
  rf=$(rank "$from")
  while IFS=: read -r file line text; do
    to=$(sed -E 's/.*#include "([a-z_]+)\/.*/\1/' <<<"$text")
    rt=$(rank "$to")
    if [ "$rt" -lt 0 ]; then
      echo "$file:$line: includes unknown layer '$to' (known: ${layers[*]})"; bad=1
    elif [ "$rt" -gt "$rf" ]; then
      echo "$file:$line: layer '$from' includes '$to', which depends on it (order: ${layers[*]})"; bad=1
    fi
  done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[a-z_]+/' "$src/$from" --include='*.c' --include='*.h' --include='*.def')
done
shared_kinds=(simd)
for dir in "$src"/primitives/*/; do
  kind=$(basename "$dir")
  [[ " ${shared_kinds[*]} " == *" $kind "* ]] && continue
  while IFS=: read -r file line text; do
    case "$file" in "$src/primitives/$kind/"*) continue ;; esac
    hdr=$(sed -E 's/.*#include "primitives\/'"$kind"'\/([^"]+)".*/\1/' <<<"$text")
    if [ "$hdr" != "$kind.h" ]; then
      echo "$file:$line: includes primitives/$kind/$hdr, private to kind '$kind' (only $kind.h is public; share through primitives/simd/ or primitives/)"; bad=1
    fi
  done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"primitives/'"$kind"'/' "$src" --include='*.c' --include='*.h' --include='*.def')
done
for d in "$src"/*/; do
  d=$(basename "$d")
  [ "$(rank "$d")" -ge 0 ] || { echo "$src/$d: a folder outside the layer list (${layers[*]}); add it"; bad=1; }
done
[ "$bad" = 0 ] && echo "layers: ${layers[*]} (one direction, no cycle); kernel kinds include one another's public headers only"
exit "$bad"
