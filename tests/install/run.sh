#!/usr/bin/env bash
# Install lgraph from build dir $1 into a scratch prefix, then build the
# consumer in $2 against it three ways and run each: find_package(lgraph)
# (shared), pkg-config (shared) and pkg-config --static.
set -euo pipefail
build=$1 consumer=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null

cmake -S "$consumer" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake" >/dev/null
"$work/cmake/consumer" | grep -q "consumer ok: 3200"
"$work/cmake/consumer_static" | grep -q "consumer ok: 3200"
echo "find_package(lgraph): ok"

pc=$(find "$prefix" -name lgraph.pc -printf '%h')
export PKG_CONFIG_PATH="$pc"
libdir=$(pkg-config --variable=libdir lgraph)
${CC:-cc} -o "$work/pc_shared" "$consumer/consumer.c" $(pkg-config --cflags --libs lgraph) \
    -Wl,-rpath,"$libdir"
"$work/pc_shared" | grep -q "consumer ok: 3200"
echo "pkg-config shared: ok"

${CC:-cc} -o "$work/pc_static" "$consumer/consumer.c" $(pkg-config --cflags lgraph) \
    "$libdir/liblgraph.a" $(pkg-config --static --libs-only-other --libs-only-l lgraph | sed 's/-llgraph//')
"$work/pc_static" | grep -q "consumer ok: 3200"
! ldd "$work/pc_static" | grep -q liblgraph
echo "pkg-config static: ok"
echo "1 passed, 0 failed"
