#!/bin/sh
# Compiler and linker launcher (see ppe_gnu_built in CMakeLists.txt): runs the command with the GNU
# driver in place of clang, so that the programs the tests profile are gcc's output whatever
# compiler builds ppe itself.
cc=$1
shift
case $(basename "$cc") in
clang++*) cc=g++ ;;
clang*) cc=gcc ;;
esac
exec "$cc" "$@"
