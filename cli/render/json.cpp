// Writes a JSON document.
#include "render/json.hpp"

namespace duet::cli::json {

std::string document(const Value& value)
{
    return value.dump(2, ' ', false, Value::error_handler_t::replace) + "\n";
}

} // namespace duet::cli::json
