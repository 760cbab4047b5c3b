"""Internal utilities: lazy numba kernels, the memory guard, progress on stderr."""
