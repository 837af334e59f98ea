# find_package(rocprofiler-systems COMPONENTS user): rocprof-mpi's implementation of the
# rocprofiler-systems user API. The one component is `user`; it provides the target
# rocprofiler-systems::rocprofiler-systems-user-library.
include(${CMAKE_CURRENT_LIST_DIR}/rocprofiler-systems-user-targets.cmake)
set(rocprofiler-systems_user_FOUND TRUE)
foreach(component IN LISTS ${CMAKE_FIND_PACKAGE_NAME}_FIND_COMPONENTS)
  if(NOT component STREQUAL "user")
    set(${CMAKE_FIND_PACKAGE_NAME}_${component}_FOUND FALSE)
    if(${CMAKE_FIND_PACKAGE_NAME}_FIND_REQUIRED_${component})
      set(${CMAKE_FIND_PACKAGE_NAME}_FOUND FALSE)
      set(${CMAKE_FIND_PACKAGE_NAME}_NOT_FOUND_MESSAGE
          "rocprof-mpi provides only the 'user' component of rocprofiler-systems")
    endif()
  endif()
endforeach()
