package io.argus.trainer.cuda;

import org.bytedeco.javacpp.Pointer;

/** A JavaCPP pointer to a raw device (or pinned) address, for the C calls that take a void*. */
final class DevicePointer extends Pointer {
    private DevicePointer(long address) {
        this.address = address;
    }

    static DevicePointer at(long address) {
        return new DevicePointer(address);
    }
}
