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

# The ONNX importer, when it was built: pkg-config lgraph-onnx and the
# installed lgraph-run.
if [ -f "$pc/lgraph-onnx.pc" ]; then
  printf '#include <lgraph_onnx.h>\n#include <stdio.h>\nint main(void) { lg_onnx_options o;\n  lg_onnx_options_init(&o); lg_graph *g;\n  lg_status s = lg_onnx_load_buffer("x", 1, &o, &g, NULL);\n  printf("onnx ok: %%d %%lld\\n", s == LG_INVALID_ARGUMENT, (long long)o.batch); return 0; }\n' \
    > "$work/onnx_consumer.c"
  ${CC:-cc} -o "$work/onnx_consumer" "$work/onnx_consumer.c" $(pkg-config --cflags --libs lgraph-onnx) \
      -Wl,-rpath,"$libdir"
  LD_LIBRARY_PATH="$libdir" "$work/onnx_consumer" | grep -q "onnx ok: 1 1"
  LD_LIBRARY_PATH="$libdir" "$prefix/bin/lgraph-run" --help | grep -q "usage: lgraph-run"
  echo "pkg-config lgraph-onnx, lgraph-run: ok"
fi
echo "1 passed, 0 failed"
