/* A small ELF standing for a GPU code object in the code-object tests: two "kernels" whose
 * bodies differ per build (KERNEL_SCALE), so each build's bytes are its own. */
#ifndef KERNEL_SCALE
#define KERNEL_SCALE 2
#endif

void stencil(float* field, int n) {
  for (int i = 1; i + 1 < n; ++i) field[i] = (field[i - 1] + field[i + 1]) * KERNEL_SCALE;
}

void gate(float* field) { field[0] = field[0] > 0 ? field[0] : 0; }
