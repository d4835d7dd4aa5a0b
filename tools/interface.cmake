# The one body of the interface packages under tools/ (tf2_msgs, control_msgs,
# simulation_interfaces), which a ROS installation has and the PyPI wheels lack: each
# package's CMakeLists.txt names its project, its dependencies and its definition files, and
# calls this macro. tools/build_interface.sh builds them into a venv of ROS 2 wheels.
#
#   body_bridge_interface(DEPENDENCIES geometry_msgs ... FILES "msg/X.msg" ...)
#
# A macro, not a function: rosidl_generate_interfaces and ament_package work in the scope of
# the package's own directory.
macro(body_bridge_interface)
  cmake_parse_arguments(_interface "" "" "DEPENDENCIES;FILES" ${ARGN})
  find_package(ament_cmake REQUIRED)
  find_package(rosidl_default_generators REQUIRED)
  foreach(_dep ${_interface_DEPENDENCIES})
    find_package(${_dep} REQUIRED)
  endforeach()

  # The wheels' exported Python targets carry the include directory of the machine that
  # built them; point them at this interpreter's headers (PYTHON_INCLUDE_DIR, given by the
  # build script).
  if(PYTHON_INCLUDE_DIR)
    foreach(_dep builtin_interfaces std_msgs geometry_msgs trajectory_msgs action_msgs
            unique_identifier_msgs service_msgs)
      if(TARGET ${_dep}::${_dep}__rosidl_generator_py)
        set_property(TARGET ${_dep}::${_dep}__rosidl_generator_py
          PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${PYTHON_INCLUDE_DIR}")
      endif()
    endforeach()
  endif()

  rosidl_generate_interfaces(${PROJECT_NAME} ${_interface_FILES}
    DEPENDENCIES ${_interface_DEPENDENCIES})
  ament_export_dependencies(rosidl_default_runtime)
  ament_package()
endmacro()
