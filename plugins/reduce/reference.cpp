// The CPU reference reduce is checked against: the exact answer within long double's rounding.
#include "reduce.hpp"

#include <algorithm>

namespace duet::reduce {

template <class T> T reference(Operation operation, std::span<const T> in)
{
    if (operation == Operation::max) {
        return *std::ranges::max_element(in);
    }
    long double sum = 0;
    for (const T value : in) {
        sum += value;
    }
    return static_cast<T>(sum);
}

template float reference(Operation, std::span<const float>);
template double reference(Operation, std::span<const double>);

} // namespace duet::reduce
