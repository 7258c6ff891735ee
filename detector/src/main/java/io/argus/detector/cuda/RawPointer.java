package io.argus.detector.cuda;

import org.bytedeco.javacpp.Pointer;

/** A JavaCPP pointer to a raw address (device, managed or pinned memory), for the C calls that take a void*. */
final class RawPointer extends Pointer {
    RawPointer(long address, long bytes) {
        this.address = address;
        this.capacity = bytes;
        this.limit = bytes;
    }

    static RawPointer at(long address) {
        return new RawPointer(address, 0);
    }
}
