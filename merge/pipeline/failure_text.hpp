// What the merge prints when a step fails: the error's text, and for a rank file damaged
// where the check at the start did not read, the option that finds such damage first.
#pragma once

#include <exception>
#include <string>

namespace rocprof::merge {

std::string failure_text(const std::exception& error);

}  // namespace rocprof::merge
