// Every decoder: included by the generated wrappers. Functions without one are recorded with
// function, times, thread and external id (decoder_base.hpp).
#pragma once

#include "mpi/decode/collectives.hpp"
#include "mpi/decode/communicator_calls.hpp"
#include "mpi/decode/completion.hpp"
#include "mpi/decode/decoder_base.hpp"
#include "mpi/decode/lifecycle.hpp"
#include "mpi/decode/point_to_point.hpp"
