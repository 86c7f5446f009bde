// gst-plan example kernel: a softmax over each float32 row, one thread per
// row, for plancustom cuda-source=softmax.cu cuda-function=softmax.
// plan_chunk and PLAN_FOR_EACH_ROW come from plancustom's prelude.
extern "C" __global__ void softmax (plan_chunk chunk)
{
  unsigned long long n = chunk.input_row_size[0] / sizeof (float);

  PLAN_FOR_EACH_ROW (chunk, r) {
    const float *x = (const float *) chunk.inputs[0] + r * n;
    float *y = (float *) chunk.output + r * n;
    float m = -__int_as_float (0x7f800000), s = 0.0f;   // -inf

    for (unsigned long long i = 0; i < n; i++)
      m = fmaxf (m, x[i]);
    for (unsigned long long i = 0; i < n; i++)
      s += (y[i] = expf (x[i] - m));
    for (unsigned long long i = 0; i < n; i++)
      y[i] /= s;
  }
}
