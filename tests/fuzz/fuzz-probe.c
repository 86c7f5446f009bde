/* Probe: clang can link a libFuzzer target. */
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput (const uint8_t * d, size_t n);
int
LLVMFuzzerTestOneInput (const uint8_t * d, size_t n)
{
  return 0;
}
