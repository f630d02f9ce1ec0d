# CMake toolchain file: cross-compile portzero for aarch64 (arm64) Linux.
#
#   scripts/make-sysroot-arm64.sh build-arm64/sysroot
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=toolchain.cmake \
#         -DPZ_SYSROOT=$PWD/build-arm64/sysroot
#   (or simply: make cross / make cross-test)
#
# Two trees are involved:
#   - the cross toolchain (gcc-aarch64-linux-gnu, libc6-dev-arm64-cross):
#     C library, crt files and kernel headers, under /usr/aarch64-linux-gnu;
#   - PZ_SYSROOT: Debian arm64 .debs unpacked with dpkg-deb -x (libibmad,
#     libibumad, cmocka, ...), WITHOUT a C library.
# CMAKE_SYSROOT is therefore NOT set (that would hide the toolchain's libc);
# the find_* commands search both trees through CMAKE_FIND_ROOT_PATH, the
# compiler gets the sysroot's headers as system include dirs, and the linker
# its library dir (-L, and -rpath-link for the libraries' own dependencies).
# Test binaries run under qemu-aarch64 (CMAKE_CROSSCOMPILING_EMULATOR), with
# the toolchain's libc as the loader prefix and the sysroot's libraries on
# LD_LIBRARY_PATH.

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(PZ_CROSS_TRIPLET aarch64-linux-gnu)
set(CMAKE_LIBRARY_ARCHITECTURE ${PZ_CROSS_TRIPLET})

set(CMAKE_C_COMPILER ${PZ_CROSS_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${PZ_CROSS_TRIPLET}-g++)
set(PZ_CROSS_LIBC_ROOT /usr/${PZ_CROSS_TRIPLET})

# Where scripts/make-sysroot-arm64.sh unpacked the arm64 .debs. From -D, else
# the environment, else <build dir>/sysroot-arm64.
if(NOT PZ_SYSROOT)
  if(DEFINED ENV{PZ_SYSROOT})
    set(PZ_SYSROOT "$ENV{PZ_SYSROOT}")
  else()
    set(PZ_SYSROOT "${CMAKE_BINARY_DIR}/sysroot-arm64")
  endif()
endif()
get_filename_component(PZ_SYSROOT "${PZ_SYSROOT}" ABSOLUTE)
set(PZ_SYSROOT "${PZ_SYSROOT}" CACHE PATH "arm64 sysroot unpacked from Debian .debs")
# Pass it on to try_compile() projects (their CMAKE_BINARY_DIR differs).
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES PZ_SYSROOT)
if(NOT EXISTS "${PZ_SYSROOT}/usr/lib/${PZ_CROSS_TRIPLET}")
  message(WARNING "PZ_SYSROOT=${PZ_SYSROOT} has no usr/lib/${PZ_CROSS_TRIPLET}; "
                  "run scripts/make-sysroot-arm64.sh ${PZ_SYSROOT}")
endif()
set(PZ_SYSROOT_LIBDIR "${PZ_SYSROOT}/usr/lib/${PZ_CROSS_TRIPLET}")

# find_path/find_library/find_package: look only in the two target trees;
# find_program: only on the build machine.
set(CMAKE_FIND_ROOT_PATH "${PZ_SYSROOT}" "${PZ_CROSS_LIBC_ROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Compile and link against the sysroot.
set(CMAKE_C_STANDARD_INCLUDE_DIRECTORIES
    "${PZ_SYSROOT}/usr/include" "${PZ_SYSROOT}/usr/include/${PZ_CROSS_TRIPLET}")
set(CMAKE_CXX_STANDARD_INCLUDE_DIRECTORIES ${CMAKE_C_STANDARD_INCLUDE_DIRECTORIES})
set(_pz_link "-L${PZ_SYSROOT_LIBDIR} -Wl,-rpath-link,${PZ_SYSROOT_LIBDIR}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${_pz_link}")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "${_pz_link}")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "${_pz_link}")
unset(_pz_link)

# pkg-config (pkg_check_modules): the sysroot's .pc files only, paths prefixed.
set(ENV{PKG_CONFIG_DIR} "")
set(ENV{PKG_CONFIG_LIBDIR} "${PZ_SYSROOT_LIBDIR}/pkgconfig:${PZ_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${PZ_SYSROOT}")

# Run target binaries (ctest, try_run) under user-mode qemu.
find_program(PZ_QEMU_AARCH64 qemu-aarch64)
if(NOT PZ_QEMU_AARCH64)
  set(PZ_QEMU_AARCH64 qemu-aarch64)
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR
    "${PZ_QEMU_AARCH64};-L;${PZ_CROSS_LIBC_ROOT};-E;LD_LIBRARY_PATH=${PZ_SYSROOT_LIBDIR}")
