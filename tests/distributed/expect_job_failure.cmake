# Runs an MPI job that must fail: cmake -D MPIEXEC=... -D NP_FLAG=-n -D RANKS=2 -D PROGRAM=... -D MODE=...
# -D LIMIT_S=... -D EXPECT=<regex> -P expect_job_failure.cmake. Passes when the job exits non-zero
# within LIMIT_S seconds (a hang is the failure this guards against) with EXPECT in its output.
string(TIMESTAMP start "%s")
execute_process(COMMAND ${MPIEXEC} ${NP_FLAG} ${RANKS} --oversubscribe ${PROGRAM} ${MODE}
  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
string(TIMESTAMP end "%s")
math(EXPR took "${end} - ${start}")
message("${PROGRAM} ${MODE} on ${RANKS} ranks: exit ${code} after ${took} s\n${out}${err}")
if(code STREQUAL "0")
  message(FATAL_ERROR "the job exited 0, though a rank failed")
elseif(NOT code MATCHES "^[0-9]+$")
  message(FATAL_ERROR "the job did not end by itself: ${code}")
elseif(took GREATER LIMIT_S)
  message(FATAL_ERROR "the job took ${took} s to end, more than ${LIMIT_S} s")
elseif(NOT "${out}${err}" MATCHES "${EXPECT}")
  message(FATAL_ERROR "the job's output lacks '${EXPECT}'")
endif()
