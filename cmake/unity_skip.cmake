# Files compiled on their own in a unity build (CMAKE_UNITY_BUILD: several .cpp files of a
# target in one translation unit, where compile time counts and nothing comes from ccache: the
# asan preset, the Wireshark chroots, the aarch64 cross build). Each defines a name in its
# anonymous namespace that another file of its target defines too. A new clash shows as a
# redefinition or an ambiguous name in those trees only: add the file here.
#   mpa_unity_skip(ROOT DIRECTORY...): marks them, as seen from the given source folders.
set(MPA_UNITY_SKIP
    lib/src/catalogue/conformance.cpp     # Observable::Sender against mpa::Sender
    lib/src/fpdu/crc32c_x86.cpp           # kPolynomial (crc32c_table.cpp)
    lib/src/fpdu/crc32c_arm.cpp           # (as crc32c_x86.cpp, on aarch64)
    lib/src/decode/packet_decoder.cpp     # kProtoTcp, kProtoUdp (ip_reassembly.cpp)
    lib/src/ulp/ulp_checks.cpp            # role() (rdma_requests.cpp)
    tests/synth/fragmentation.cpp)        # kIpv4, kIpv6

function(mpa_unity_skip root)
  set(files ${MPA_UNITY_SKIP})
  list(TRANSFORM files PREPEND ${root}/)
  set_source_files_properties(${files} DIRECTORY ${ARGN} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endfunction()
