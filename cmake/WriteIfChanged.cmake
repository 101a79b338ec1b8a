# write_if_changed(FILE TEXT): writes TEXT to FILE only when it differs, so
# targets depending on FILE do not rebuild needlessly.
function(write_if_changed file text)
  set(old "")
  if(EXISTS ${file})
    file(READ ${file} old)
  endif()
  if(NOT old STREQUAL text)
    file(WRITE ${file} "${text}")
  endif()
endfunction()
