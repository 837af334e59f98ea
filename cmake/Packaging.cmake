# What `cmake --install` puts besides the targets (each installs itself), and the packages
# CPack makes of the installed tree: `cpack -G TGZ` and `cpack -G DEB` in the build directory.

# The installed tree is relocatable: binaries find our libraries in ../lib, libraries find
# each other beside them, wherever the tree is moved.
set(CMAKE_INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR};$ORIGIN")

install(DIRECTORY ${PROJECT_SOURCE_DIR}/jobscripts/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/rocprof-mpi/jobscripts
        USE_SOURCE_PERMISSIONS)
install(FILES ${PROJECT_SOURCE_DIR}/tests/examples/jacobi_mpi.cpp
        DESTINATION ${CMAKE_INSTALL_DATADIR}/rocprof-mpi/examples)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/rocprof-mpi.lua
        DESTINATION ${CMAKE_INSTALL_DATADIR}/rocprof-mpi/modulefiles)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_PACKAGE_NAME rocprof-mpi)
set(CPACK_PACKAGE_VENDOR "rocprof-mpi")
set(CPACK_PACKAGE_CONTACT "rocprof-mpi developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "MPI-aware GPU profiler: every rank's host threads, GPU work and MPI calls on one timeline")
set(CPACK_GENERATOR "TGZ;DEB")
set(CPACK_PACKAGING_INSTALL_PREFIX /opt/rocprof-mpi)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # the Debian libraries it loads, found by dpkg-shlibdeps
set(CPACK_DEBIAN_PACKAGE_DEPENDS "openmpi-bin")
include(CPack)
