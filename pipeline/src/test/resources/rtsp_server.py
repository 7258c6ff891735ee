#!/usr/bin/python3
"""A real RTSP server for tests: GStreamer's gst-rtsp-server serving an H.264 MP4 file at rtsp://127.0.0.1:PORT/test
over TCP and UDP, in real time. Usage: rtsp_server.py PORT FILE. Prints READY once listening."""
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtspServer  # noqa: E402

Gst.init(None)
port, path = sys.argv[1], sys.argv[2]
server = GstRtspServer.RTSPServer()
server.set_address("127.0.0.1")
server.set_service(port)
factory = GstRtspServer.RTSPMediaFactory()
factory.set_launch(
    "( filesrc location=%s ! qtdemux ! h264parse ! rtph264pay name=pay0 pt=96 config-interval=1 )" % path)
factory.set_shared(False)
server.get_mount_points().add_factory("/test", factory)
if server.attach(None) == 0:
    print("cannot listen on port " + port, flush=True)
    sys.exit(1)
print("READY", flush=True)
GLib.MainLoop().run()
