{-# LANGUAGE OverloadedStrings #-}
-- | The worker protocol, Haskell side: read the runner's spec JSON, write the result JSON
-- atomically (temporary file, fsync, rename), as harness/protocol.py spells both.
module Protocol
  ( Spec (..)
  , readSpec
  , paramInt
  , paramString
  , configString
  , Result (..)
  , emptyResult
  , resultValue
  , writeJsonAtomic
  ) where

import qualified Data.Aeson as A
import qualified Data.Aeson.Key as K
import qualified Data.Aeson.KeyMap as KM
import qualified Data.ByteString.Lazy as BL
import Data.Int (Int64)
import qualified Data.Scientific as Sci
import qualified Data.Text as T
import Foreign.C.Types (CInt (..))
import System.IO
import System.Posix.IO (handleToFd, closeFd)
import System.Posix.Types (Fd (..))
import System.Posix.Process (getProcessID)
import System.Directory (renameFile, removeFile)
import Control.Exception (IOException, catch, onException)

foreign import ccall safe "fsync" c_fsync :: CInt -> IO CInt

-- | What the runner asks of one process (harness/protocol.py SPEC_KEYS).
data Spec = Spec
  { specBenchmark :: String
  , specParams :: A.Object
  , specEngine :: String
  , specConfig :: A.Object
  , specIterations :: Int
  , specBudgetS :: Double
  , specMinIterations :: Int
  , specWorkdir :: FilePath
  , specSeed :: Integer
  }

readSpec :: FilePath -> IO Spec
readSpec path = do
  bytes <- BL.readFile path
  case A.eitherDecode bytes of
    Left err -> ioError (userError ("cannot read spec " ++ path ++ ": " ++ err))
    Right (A.Object o) -> return Spec
      { specBenchmark = str "benchmark" o
      , specParams = obj "params" o
      , specEngine = str "engine" o
      , specConfig = obj "engine_config" o
      , specIterations = maybe 0 fromIntegral (int "iterations" o)
      , specBudgetS = maybe 0 Sci.toRealFloat (num "budget_s" o)
      , specMinIterations = maybe 2 fromIntegral (int "min_iterations" o)
      , specWorkdir = str "workdir" o
      , specSeed = maybe 0 id (int "seed" o)
      }
    Right _ -> ioError (userError ("spec " ++ path ++ " is not a JSON object"))
  where
    str k o = case KM.lookup (K.fromString k) o of
      Just (A.String t) -> T.unpack t
      _ -> ""
    obj k o = case KM.lookup (K.fromString k) o of
      Just (A.Object v) -> v
      _ -> KM.empty
    num k o = case KM.lookup (K.fromString k) o of
      Just (A.Number n) -> Just n
      _ -> Nothing
    int k o = fmap (floor :: Sci.Scientific -> Integer) (num k o)

-- | An integer parameter (`n`), given as a JSON number or a numeric string.
paramInt :: String -> Spec -> Maybe Int64
paramInt k spec = case KM.lookup (K.fromString k) (specParams spec) of
  Just (A.Number n) -> Just (floor n)
  Just (A.String t) -> case reads (T.unpack t) of
    [(v, "")] -> Just v
    _ -> Nothing
  _ -> Nothing

-- | A string parameter (`corpus`), or a number shown as text.
paramString :: String -> Spec -> Maybe String
paramString k spec = case KM.lookup (K.fromString k) (specParams spec) of
  Just (A.String t) -> Just (T.unpack t)
  Just (A.Number n) -> Just (show n)
  _ -> Nothing

-- | A string field of the engine_config (the server DSN, `unavailable`, `note`).
configString :: String -> A.Object -> Maybe String
configString k o = case KM.lookup (K.fromString k) o of
  Just (A.String t) -> Just (T.unpack t)
  _ -> Nothing

-- | The result file (harness/protocol.py RESULT_KEYS); arrays are kept newest-first while running.
data Result = Result
  { resStatus :: String
  , resReason :: String
  , resWall :: [Int64]
  , resCpu :: [Int64]
  , resOk :: [Bool]
  , resCrossings :: Maybe Int64
  , resValues :: Maybe Int64
  , resBudgetStop :: Maybe String
  }

emptyResult :: Result
emptyResult = Result "error" "" [] [] [] Nothing Nothing Nothing

resultValue :: Int -> String -> [(String, A.Value)] -> Result -> A.Value
resultValue pid runtime extra r = A.object $
  [ "schema" A..= (1 :: Int)
  , "pid" A..= pid
  , "runtime" A..= runtime
  , "status" A..= resStatus r
  , "reason" A..= resReason r
  , "wall_ns" A..= reverse (resWall r)
  , "cpu_ns" A..= reverse (resCpu r)
  , "check_ok" A..= reverse (resOk r)
  , "crossings" A..= replicate n (resCrossings r)
  , "values_converted" A..= replicate n (resValues r)
  ] ++ maybe [] (\s -> ["budget_stop" A..= s]) (resBudgetStop r)
    ++ [ (K.fromString k, v) | (k, v) <- extra ]
  where n = length (resWall r)

-- | Write JSON to `path` via `path.tmp.<pid>`, fsync, rename: a reader sees all of it or none.
writeJsonAtomic :: FilePath -> A.Value -> IO ()
writeJsonAtomic path v = do
  pid <- getProcessID
  let tmp = path ++ ".tmp." ++ show pid
  (do h <- openBinaryFile tmp WriteMode
      BL.hPut h (A.encode v)
      BL.hPut h "\n"
      hFlush h
      Fd fd <- handleToFd h
      rc <- c_fsync fd
      closeFd (Fd fd)
      if rc /= 0 then ioError (userError ("fsync " ++ tmp ++ " failed")) else return ()
      renameFile tmp path) `onException` (removeFile tmp `catch` ignore)
  where
    ignore :: IOException -> IO ()
    ignore _ = return ()
