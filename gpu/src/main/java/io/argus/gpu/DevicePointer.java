package io.argus.gpu;

import org.bytedeco.javacpp.Pointer;

/** A JavaCPP pointer to a raw address (device, managed or pinned memory), for the C calls that take a void*. */
public final class DevicePointer extends Pointer {
    DevicePointer(long address, long bytes) {
        this.address = address;
        this.capacity = bytes;
        this.limit = bytes;
    }

    public static DevicePointer at(long address) {
        return new DevicePointer(address, 0);
    }
}
