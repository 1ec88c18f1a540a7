using StorageEngine.Tool;

return ToolApp.Run(args, Console.In, Console.Out, Console.Error, interactive: !Console.IsErrorRedirected, handleCtrlC: true);
