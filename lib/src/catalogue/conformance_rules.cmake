# Embeds conformance_rules.txt, the conformance matrix's rules, in a library target: a C++
# source generated at build time (by conformance_rules_embed.cmake) defines
# conformance_rules_text(), which conformance.cpp reads at first use. Included by
# lib/CMakeLists.txt (mpa_core, mpa_core_plugin) and tests/aarch64/CMakeLists.txt.
#   mpa_embed_conformance_rules(TARGET ROOT)   ROOT: the source tree's root, which the file's
#                                              name in the table's faults is relative to
set(MPA_CONFORMANCE_RULES ${CMAKE_CURRENT_LIST_DIR}/conformance_rules.txt)
set(MPA_CONFORMANCE_RULES_EMBED ${CMAKE_CURRENT_LIST_DIR}/conformance_rules_embed.cmake)

function(mpa_embed_conformance_rules target root)
  set(generated ${CMAKE_CURRENT_BINARY_DIR}/conformance_rules_text.cpp)
  # One command for every library of this folder, run by a target of its own, so that builds
  # in parallel do not write the file twice at once (Makefile generators run a command once
  # per target that lists its output).
  if(NOT TARGET mpa_conformance_rules_text)
    file(RELATIVE_PATH name ${root} ${MPA_CONFORMANCE_RULES})
    add_custom_command(
      OUTPUT ${generated}
      COMMAND ${CMAKE_COMMAND} -DINPUT=${MPA_CONFORMANCE_RULES} -DNAME=${name} -DOUTPUT=${generated}
              -P ${MPA_CONFORMANCE_RULES_EMBED}
      DEPENDS ${MPA_CONFORMANCE_RULES} ${MPA_CONFORMANCE_RULES_EMBED}
      COMMENT "Embedding the conformance rules (${name})"
      VERBATIM)
    add_custom_target(mpa_conformance_rules_text DEPENDS ${generated})
  endif()
  target_sources(${target} PRIVATE ${generated})
  add_dependencies(${target} mpa_conformance_rules_text)
endfunction()
