# Script mode: reads mlir-tblgen --print-records output (IN) and writes the
# full name of every op it defines, one per line (OUT), so the capability
# docs list exactly the dialect's ops.
include(${CMAKE_CURRENT_LIST_DIR}/WriteIfChanged.cmake)
file(STRINGS ${IN} lines REGEX "^  string opName = \"[a-z_0-9]+\";$")
set(text "")
foreach(line IN LISTS lines)
  string(REGEX REPLACE "^  string opName = \"([a-z_0-9]+)\";$" "${DIALECT}.\\1" op "${line}")
  string(APPEND text "${op}\n")
endforeach()
write_if_changed(${OUT} "${text}")
