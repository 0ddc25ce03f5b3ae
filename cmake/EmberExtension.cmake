# ember_add_extension(<name> SOURCES <file>... [LINK <lib>...])
#
# Builds a custom-op library <name> (lib<name>.so) from C++ sources that register ops with EMBER_LIBRARY /
# EMBER_LIBRARY_IMPL, linked against Ember::ember, for loading at run time with ember::load_library(path) in
# C++ or ember.ops.load_library(path) in Python. find_package(Ember) includes this file, so an out-of-tree
# project needs only:
#   find_package(Ember REQUIRED)
#   ember_add_extension(myops SOURCES myops.cpp)
# The library's path is $<TARGET_FILE:myops>, for example to pass to a program or a test.
function(ember_add_extension name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES;LINK")
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "ember_add_extension(${name}): SOURCES is required")
  endif()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ember_add_extension(${name}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  # SHARED rather than MODULE: a program may also link the library directly instead of loading it.
  add_library(${name} SHARED ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE Ember::ember ${ARG_LINK})
  target_compile_features(${name} PRIVATE cxx_std_20)
  target_compile_definitions(${name} PRIVATE EMBER_EXTENSION_NAME=${name})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()
