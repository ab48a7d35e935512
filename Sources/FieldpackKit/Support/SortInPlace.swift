/// Sorts in place without allocating (Swift's `sort` may allocate a buffer of half the array,
/// which at millions of records is the stage's peak memory). Introsort-style quicksort with a
/// median-of-three pivot and insertion sort for short runs; not stable.
package func sortInPlace<T>(_ buffer: UnsafeMutableBufferPointer<T>, by less: (T, T) -> Bool) {
    func insertion(_ low: Int, _ high: Int) {
        var i = low + 1
        while i <= high {
            let value = buffer[i]
            var j = i - 1
            while j >= low && less(value, buffer[j]) {
                buffer[j + 1] = buffer[j]
                j -= 1
            }
            buffer[j + 1] = value
            i += 1
        }
    }
    var low = 0
    var high = buffer.count - 1
    var stack: [(Int, Int)] = []
    while true {
        while high - low > 16 {
            let middle = low + (high - low) / 2
            if less(buffer[middle], buffer[low]) { buffer.swapAt(middle, low) }
            if less(buffer[high], buffer[low]) { buffer.swapAt(high, low) }
            if less(buffer[high], buffer[middle]) { buffer.swapAt(high, middle) }
            let pivot = buffer[middle]
            var i = low
            var j = high
            while i <= j {
                while less(buffer[i], pivot) { i += 1 }
                while less(pivot, buffer[j]) { j -= 1 }
                if i <= j {
                    buffer.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            // Recurse (via the stack) into the larger side later; loop on the smaller one.
            if j - low < high - i {
                if i < high { stack.append((i, high)) }
                high = j
            } else {
                if low < j { stack.append((low, j)) }
                low = i
            }
        }
        if high > low { insertion(low, high) }
        guard let next = stack.popLast() else { return }
        (low, high) = next
    }
}
