# Convolution tests: the reference and every path against the truth, layout
# choice, bad input; and, when oneDNN is found, agreement with its conv.
lg_add_test(primitives_conv SOURCES primitives/test_conv.c)
if(LG_DNNL_FOUND)
  lg_add_test(primitives_conv_dnnl DNNL SOURCES primitives/test_conv_dnnl.c)
endif()
# The pointwise (1x1) path against the truth under every ISA cap.
lg_add_test(primitives_conv_pw SOURCES primitives/test_conv_pw.c)
# the kxk direct and depthwise fast paths (issue 24)
lg_add_test(primitives_conv_kxk SOURCES primitives/test_conv_kxk.c)
# bf16 / f16 / int8 conv with scales, zero points, typed sums and post-ops
# (quant.h) against its reference and an independent model, every ISA cap.
lg_add_test(primitives_conv_quant SOURCES primitives/test_conv_quant.c)
if(LG_DNNL_FOUND)
  # int8 (output scales, zero points) and bf16 conv against oneDNN's
  lg_add_test(primitives_conv_quant_dnnl DNNL SOURCES primitives/test_conv_quant_dnnl.c)
endif()
# one typed conv kernel executed by four threads at once (its creation-time
# scratch and the fallback when taken), every result against the reference
lg_add_test(primitives_conv_quant_threads SOURCES primitives/test_conv_quant_threads.c)
# Winograd F(4x4, 3x3) against the truth under every ISA cap (issue 24)
lg_add_test(primitives_conv_wino SOURCES primitives/test_conv_wino.c)
