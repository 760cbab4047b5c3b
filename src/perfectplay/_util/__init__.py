"""Internal utilities: lazy numba kernels, the memory guard, progress on stderr."""

__all__: list[str] = []  # internal: import the modules themselves
