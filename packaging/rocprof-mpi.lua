-- Lmod module for an installed rocprof-mpi tree (environment-modules reads it as well through
-- Lmod). Sites copy it into their module path as rocprof-mpi/<version>.lua; it finds the tree
-- from where it is installed (PREFIX/share/rocprof-mpi/modulefiles/rocprof-mpi.lua), or from
-- ROCPROF_MPI_PREFIX when copied elsewhere.
whatis("rocprof-mpi: MPI-aware GPU profiler (rocprof-mpi, rocprof-merge)")
help([[
srun -n 512 rocprof-mpi --mpi-trace --marker-trace -d traces/%job% -- ./app
srun -n 16 -c 4 rocprof-merge traces/<job id> -o app.pftrace
Manuals: $ROCPROF_MPI_ROOT/share/doc/rocprof-mpi/
]])
local root = os.getenv("ROCPROF_MPI_PREFIX")
if root == nil or root == "" then
  root = myFileName():gsub("/share/rocprof%-mpi/modulefiles/[^/]*$", "")
end
setenv("ROCPROF_MPI_ROOT", root)
prepend_path("PATH", pathJoin(root, "bin"))
prepend_path("CMAKE_PREFIX_PATH", root)
prepend_path("CPATH", pathJoin(root, "include"))
prepend_path("LIBRARY_PATH", pathJoin(root, "lib"))
